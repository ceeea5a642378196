package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func outboundCount(t *testing.T, api *resttest.API) int {
	t.Helper()
	var n int
	if err := api.Store.DB.Get(&n, `SELECT count(*) FROM messages WHERE direction = 'outbound'`); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	body := map[string]any{"conversation_id": "conv_wa_1h", "text": "once"}
	first := api.Want(sendMsg(api, "test_all", body, "Idempotency-Key", "k-1"), 201, "")
	again := api.Want(sendMsg(api, "test_all", body, "Idempotency-Key", "k-1"), 201, "")
	if again.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("Idempotent-Replayed: first %q, again %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	if !bytes.Equal(first.Raw, again.Raw) || again.Header.Get("X-Request-Id") != first.Header.Get("X-Request-Id") {
		t.Errorf("replay differs:\n%s\n%s", first.Raw, again.Raw)
	}
	if n := outboundCount(t, api); n != 1 {
		t.Errorf("%d messages sent for one key", n)
	}
	// The same key with another body, or on another endpoint, is refused.
	api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "twice"}, "Idempotency-Key", "k-1"), 422, "idempotency_key_reused")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", body, "Idempotency-Key", "k-1"), 422, "idempotency_key_reused")
	// Keys are per API key.
	api.Want(sendMsg(api, "msg_write", body, "Idempotency-Key", "k-1"), 201, "")
	// Errors are final answers too, and replayed the same way.
	closed := map[string]any{"conversation_id": "conv_wa_25h", "text": "late"}
	e1 := api.Want(sendMsg(api, "test_all", closed, "Idempotency-Key", "k-2"), 422, "window_closed")
	e2 := api.Want(sendMsg(api, "test_all", closed, "Idempotency-Key", "k-2"), 422, "window_closed")
	if e2.Header.Get("Idempotent-Replayed") != "true" || e2.Body["error"].(map[string]any)["request_id"] != e2.Header.Get("X-Request-Id") ||
		!bytes.Equal(e1.Raw, e2.Raw) {
		t.Errorf("error replay: %s %v", e2.Raw, e2.Header)
	}
	// Remembered for 24 hours.
	api.Clock.Advance(24*time.Hour - time.Millisecond)
	api.Want(sendMsg(api, "test_all", body, "Idempotency-Key", "k-1"), 201, "")
	if n := outboundCount(t, api); n != 2 {
		t.Errorf("%d messages before the key expired, want 2", n)
	}
	api.Clock.Advance(time.Millisecond)
	fresh := api.Want(sendMsg(api, "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "new day"}, "Idempotency-Key", "k-1"), 422, "window_closed")
	if fresh.Header.Get("Idempotent-Replayed") != "" {
		t.Error("an expired key was replayed")
	}
}

func TestIdempotencyOnEveryPost(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	contact := map[string]any{"name": "Ida", "email": "ida@example.com"}
	c1 := api.Want(api.Do("POST", "/v1/contacts", "test_all", contact, "Idempotency-Key", "c"), 201, "")
	c2 := api.Want(api.Do("POST", "/v1/contacts", "test_all", contact, "Idempotency-Key", "c"), 201, "")
	if c1.Data()["id"] != c2.Data()["id"] || c2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("contact replay: %s / %s", c1.Raw, c2.Raw)
	}
	msg := map[string]any{"channel": "website", "from": "v-idem", "text": "hi"}
	i1 := api.Want(api.Do("POST", "/v1/test/inbound", "test_all", msg, "Idempotency-Key", "i"), 201, "")
	i2 := api.Want(api.Do("POST", "/v1/test/inbound", "test_all", msg, "Idempotency-Key", "i"), 201, "")
	if !bytes.Equal(i1.Raw, i2.Raw) {
		t.Error("inbound replay differs")
	}
	long := strings.Repeat("x", 256)
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"name": "Max", "email": "max@example.com"}, "Idempotency-Key", long), 400, "invalid_idempotency_key")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", `"not an object"`, "Idempotency-Key", long), 400, "invalid_request")
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"name": "Max", "email": "max@example.com"}, "Idempotency-Key", strings.Repeat("x", 255)), 201, "")
	// GET ignores the header.
	api.Want(api.Do("GET", "/v1/channels", "test_all", nil, "Idempotency-Key", long), 200, "")
	var rows []struct {
		Livemode bool `db:"livemode"`
		Status   *int `db:"response_status"`
	}
	if err := api.Store.DB.Select(&rows, `SELECT livemode, response_status FROM idempotency_keys`); err != nil || len(rows) != 3 {
		t.Fatalf("idempotency rows %v %v", rows, err)
	}
	for _, r := range rows {
		if r.Livemode || r.Status == nil || *r.Status != 201 {
			t.Errorf("row livemode %v status %v", r.Livemode, r.Status)
		}
	}
}

// post sends a raw request to any server of the test.
func post(t *testing.T, url, secret, key string, body any) (*http.Response, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url+"/v1/messages", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp, buf.Bytes()
}

// A duplicate that arrives while the first is still running gets 409, even
// on another API process: Postgres holds the claim.
func TestIdempotencyInProgressAcrossProcesses(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	other := httptest.NewServer((&rest.Server{Resolver: api.Resolver}).Handler())
	defer other.Close()
	// Hold the conversation so the first send stops inside its transaction.
	tx := api.Store.DB.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`SELECT 1 FROM conversations WHERE id = 'conv_wa_1h' FOR UPDATE`)

	body := map[string]any{"conversation_id": "conv_wa_1h", "text": "slow"}
	secret := api.Key("test_all")
	var wg sync.WaitGroup
	var firstStatus int
	var firstBody []byte
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, raw := post(t, api.HTTP.URL, secret, "slow-key", body)
		firstStatus, firstBody = resp.StatusCode, raw
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		_ = api.Store.DB.Get(&n, `SELECT count(*) FROM idempotency_keys WHERE key = 'slow-key'`)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first request never claimed its key")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, raw := post(t, other.URL, secret, "slow-key", body)
	if resp.StatusCode != 409 || !strings.Contains(string(raw), "idempotency_in_progress") {
		t.Errorf("duplicate in flight: %d %s", resp.StatusCode, raw)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if firstStatus != 201 {
		t.Fatalf("first request: %d %s", firstStatus, firstBody)
	}
	resp, raw = post(t, other.URL, secret, "slow-key", body)
	if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(raw, firstBody) {
		t.Errorf("after the first finished: %d %s", resp.StatusCode, raw)
	}
	if n := outboundCount(t, api); n != 1 {
		t.Errorf("%d messages sent", n)
	}
}

func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	dbExec(t, api, `UPDATE workspaces SET rate_per_second = 1000, rate_per_minute = 100000 WHERE id = 'ws_main'`)
	body := map[string]any{"conversation_id": "conv_wa_1h", "text": "burst"}
	secret := api.Key("test_all")
	var wg sync.WaitGroup
	statuses := make([]int, 10)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := post(t, api.HTTP.URL, secret, "burst-key", body)
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for _, s := range statuses {
		if s != 201 && s != 409 {
			t.Errorf("statuses %v", statuses)
		}
	}
	if n := outboundCount(t, api); n != 1 {
		t.Errorf("%d messages sent by 10 requests with one key", n)
	}
}

// A 5xx is not final: the key is released and a retry runs again. A
// retried send that succeeds counts once.
func TestIdempotencyReleasedOnServerError(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	body := map[string]any{"conversation_id": "conv_live", "text": "live hello"}
	for i := range 2 {
		r := api.Want(sendMsg(api, "live_all", body, "Idempotency-Key", "live-1"), 503, "channel_unavailable")
		if got := r.Header.Get("Idempotent-Replayed"); got != "" {
			t.Errorf("attempt %d: a 503 was replayed (Idempotent-Replayed %q)", i+1, got)
		}
	}
	if used := usedMessages(api, "live_all"); used != 0 {
		t.Errorf("refused sends counted %v", used)
	}
	liveAdapters(api)
	first := api.Want(sendMsg(api, "live_all", body, "Idempotency-Key", "live-1"), 201, "")
	again := api.Want(sendMsg(api, "live_all", body, "Idempotency-Key", "live-1"), 201, "")
	if !bytes.Equal(first.Raw, again.Raw) {
		t.Error("replay differs")
	}
	if used := usedMessages(api, "live_all"); used != 1 {
		t.Errorf("a retried send counted %v times", used)
	}
}
