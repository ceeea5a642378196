package send_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// TestConcurrentSandboxRepliesKeepTheirOrder: replies sent at once into one
// conversation (the reserve runs optimistically, and again in a transaction
// when another reply changed the conversation first) are all stored, the
// conversation counts each once, and their message.sent events, in the
// order the fan-out reads them (seq), follow each sender's order.
func TestConcurrentSandboxRepliesKeepTheirOrder(t *testing.T) {
	api := resttest.New(t)
	conv := api.Inbound("website", "visitor-optimistic", "hello")["conversation"].(map[string]any)
	convID, first := conv["id"].(string), int(conv["message_count"].(float64))
	const senders, each = 6, 5
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for k := range each {
				r := api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": convID,
					"text": fmt.Sprintf("reply %d.%d", g, k)})
				if r.Status != 201 {
					t.Errorf("reply %d.%d: %d %s", g, k, r.Status, r.Raw)
				}
			}
		})
	}
	wg.Wait()
	var stored, count int
	if err := api.Store.DB.GetContext(t.Context(), &stored, `SELECT count(*) FROM messages
		WHERE conversation_id = $1 AND direction = 'outbound'`, convID); err != nil {
		t.Fatal(err)
	}
	if err := api.Store.DB.GetContext(t.Context(), &count, `SELECT message_count FROM conversations WHERE id = $1`, convID); err != nil {
		t.Fatal(err)
	}
	if stored != senders*each || count != first+senders*each {
		t.Errorf("%d replies stored, message_count %d; want %d and %d", stored, count, senders*each, first+senders*each)
	}
	var envelopes []string
	if err := api.Store.DB.SelectContext(t.Context(), &envelopes, `SELECT envelope::text FROM events
		WHERE conversation_id = $1 AND type = 'message.sent' ORDER BY seq`, convID); err != nil {
		t.Fatal(err)
	}
	next := make([]int, senders) // each sender's next reply, in seq order
	for _, e := range envelopes {
		var env struct {
			Data struct {
				Text string `json:"text"`
			} `json:"data"`
		}
		var g, k int
		if err := json.Unmarshal([]byte(e), &env); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscanf(env.Data.Text, "reply %d.%d", &g, &k); err != nil {
			t.Fatalf("message.sent of %q: %v", env.Data.Text, err)
		}
		if k != next[g] {
			t.Errorf("message.sent of reply %d.%d follows reply %d.%d", g, k, g, next[g]-1)
		}
		next[g] = k + 1
	}
	if len(envelopes) != senders*each {
		t.Errorf("%d message.sent events, want %d", len(envelopes), senders*each)
	}
}
