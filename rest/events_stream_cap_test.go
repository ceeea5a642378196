package rest_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestEventStreamsCappedPerKey: a key holds at most rest.MaxStreamsPerKey
// open streams; one more is 429 too_many_streams, and another key is not
// affected.
func TestEventStreamsCappedPerKey(t *testing.T) {
	api := resttest.New(t)
	for i := range rest.MaxStreamsPerKey {
		if resp, _ := openStream(t, api, "test_all", "", ""); resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, _ := openStream(t, api, "test_all", "", "")
	body, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	if resp.StatusCode != 429 || e.Error.Code != "too_many_streams" {
		t.Fatalf("stream %d: %d %s", rest.MaxStreamsPerKey+1, resp.StatusCode, body)
	}
	if resp, _ := openStream(t, api, "live_all", "", ""); resp.StatusCode != 200 {
		t.Fatalf("another key's stream: %d", resp.StatusCode)
	}
}
