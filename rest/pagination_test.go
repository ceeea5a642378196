package rest_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestPaginationWalksEveryItemOnce(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	for i := 0; i < 7; i++ {
		api.Inbound("website", fmt.Sprintf("visitor-p%d", i), "hi")
		api.Clock.Advance(time.Second)
	}
	seen := map[string]bool{}
	var last string
	cursor := ""
	pages := 0
	for {
		path := "/v1/conversations?limit=3"
		if cursor != "" {
			path += "&starting_after=" + url.QueryEscape(cursor)
		}
		r := api.Want(api.Do("GET", path, "test_all", nil), 200, "")
		pages++
		for _, item := range r.Items() {
			c := item.(map[string]any)
			id, created := c["id"].(string), c["created_at"].(string)
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			if last != "" && created > last {
				t.Fatalf("not newest first: %s after %s", created, last)
			}
			seen[id], last = true, created
		}
		if r.Data()["has_more"] != true {
			if r.Data()["next_cursor"] != nil {
				t.Error("last page has a next_cursor")
			}
			break
		}
		cursor = r.Data()["next_cursor"].(string)
	}
	if len(seen) != 11 || pages != 4 {
		t.Errorf("%d conversations in %d pages, want 11 in 4", len(seen), pages)
	}
}

func TestPaginationErrors(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	for _, limit := range []string{"0", "101", "-1", "ten", "2.5"} {
		api.Want(api.Do("GET", "/v1/conversations?limit="+limit, "test_all", nil), 400, "invalid_limit")
	}
	api.Want(api.Do("GET", "/v1/conversations?limit=100", "test_all", nil), 200, "")
	page := api.Want(api.Do("GET", "/v1/conversations?limit=1", "test_all", nil), 200, "").Data()
	cursor := page["next_cursor"].(string)
	bad := []string{
		"garbage",
		cursor[:len(cursor)-2] + "xx",
		tamper(cursor),
	}
	for _, c := range bad {
		api.Want(api.Do("GET", "/v1/conversations?starting_after="+url.QueryEscape(c), "test_all", nil), 400, "invalid_cursor")
	}
	// A cursor of one list is refused by another.
	api.Want(api.Do("GET", "/v1/contacts?starting_after="+url.QueryEscape(cursor), "test_all", nil), 400, "invalid_cursor")
	msgs := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h/messages?limit=1", "test_all", nil), 200, "").Data()
	mc := msgs["next_cursor"].(string)
	api.Want(api.Do("GET", "/v1/conversations/conv_wa_25h/messages?starting_after="+url.QueryEscape(mc), "test_all", nil), 400, "invalid_cursor")
	next := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h/messages?limit=1&starting_after="+url.QueryEscape(mc), "test_all", nil), 200, "")
	if got := next.Items()[0].(map[string]any)["id"]; got != "msg_wa_1h_2" {
		t.Errorf("second message page starts at %v", got)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Clock.Set(time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC))
	u := api.Want(api.Do("GET", "/v1/usage", "live_all", nil), 200, "").Data()
	want := map[string]any{"period": "2026-12", "messages_used": float64(0), "messages_limit": float64(100), "resets_at": "2027-01-01T00:00:00.000Z"}
	for k, v := range want {
		if u[k] != v {
			t.Errorf("usage.%s = %v, want %v", k, u[k], v)
		}
	}
	if _, err := api.Store.DB.Exec(`INSERT INTO usage_counters VALUES ('ws_main', true, '2026-12', 7)`); err != nil {
		t.Fatal(err)
	}
	if got := api.Want(api.Do("GET", "/v1/usage", "live_all", nil), 200, "").Data()["messages_used"]; got != float64(7) {
		t.Errorf("live messages_used %v", got)
	}
	if got := api.Want(api.Do("GET", "/v1/usage", "test_all", nil), 200, "").Data()["messages_used"]; got != float64(0) {
		t.Errorf("sandbox messages_used %v", got)
	}
	api.Clock.Advance(time.Second) // January: a new period
	if got := api.Want(api.Do("GET", "/v1/usage", "live_all", nil), 200, "").Data()["messages_used"]; got != float64(0) {
		t.Errorf("messages_used after the 1st: %v", got)
	}
}

// tamper changes one character of a cursor's payload, keeping its signature.
func tamper(c string) string {
	b := []byte(c)
	if b[10] == 'A' {
		b[10] = 'B'
	} else {
		b[10] = 'A'
	}
	return string(b)
}
