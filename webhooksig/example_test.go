package webhooksig_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/webhooksig"
)

// A receiver: verify, answer the verification challenge, de-duplicate on
// the event id, then handle the event.
func Example() {
	secret := os.Getenv("MSGSVC_WEBHOOK_SECRET") // whsec_..., shown once at creation
	var seen sync.Map                            // use a table with a unique key in production
	http.HandleFunc("/msgsvc/webhook", func(w http.ResponseWriter, r *http.Request) {
		event, err := webhooksig.ParseRequest(r, secret)
		if err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		if event.Type == "endpoint.verification" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": event.Challenge()})
			return
		}
		if _, dup := seen.LoadOrStore(event.ID, true); dup { // at least once; a replay keeps the id
			return
		}
		switch event.Type {
		case "message.received":
			var msg struct {
				ConversationID string  `json:"conversation_id"`
				Text           *string `json:"text"`
			}
			_ = json.Unmarshal(event.Data, &msg)
			log.Printf("new message in %s", msg.ConversationID)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// Checking one request as msgsvc sends it: signed with the endpoint's secret
// at the time of sending; a tampered body or another secret is refused.
func ExampleParseRequest() {
	const secret = "whsec_example"
	body := []byte(`{"id":"evt_1","type":"endpoint.verification","created_at":"2026-10-01T12:00:00.000Z","channel":null,"website_id":null,"data":{"challenge":"ch_42"}}`)
	req := httptest.NewRequest("POST", "/msgsvc/webhook", bytes.NewReader(body))
	req.Header.Set(webhooksig.HeaderName, webhooksig.Header(time.Now(), body, secret))

	event, err := webhooksig.ParseRequest(req, secret)
	fmt.Println(event.Type, event.Challenge(), err)

	_, err = webhooksig.Parse(req.Header.Get(webhooksig.HeaderName), body, time.Now(), "whsec_other")
	fmt.Println(err)
	// Output:
	// endpoint.verification ch_42 <nil>
	// webhooksig: no v1 signature matches
}
