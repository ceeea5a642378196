package webhooksig_test

import (
	"encoding/json"
	"log"
	"net/http"
	"os"
	"sync"

	"github.com/msgsvc/msgsvc/rest/webhooksig"
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
