package jobs_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// registerReadmeReceiver is the README's receiver, as printed there (the
// test checks that the two are the same), on http.DefaultServeMux.
func registerReadmeReceiver() {
	// README:begin
	http.HandleFunc("/msgsvc", func(w http.ResponseWriter, r *http.Request) {
		event, err := webhooksig.ParseRequest(r, os.Getenv("MSGSVC_WEBHOOK_SECRET"))
		if err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		if event.Type == "endpoint.verification" {
			json.NewEncoder(w).Encode(map[string]string{"challenge": event.Challenge()})
			return
		}
		// Delivery is at least once: skip an event.ID you have already handled.
		// event.Data is the message, conversation or contact, by event.Type.
		w.WriteHeader(http.StatusNoContent)
	})
	// README:end
}

// readmeBlock is the Go code block of the README's "Receiving webhooks"
// section, and the code between the README markers of this file, both
// without their indentation.
func readmeBlocks(t *testing.T) (readme, here string) {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## Receiving webhooks")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no Go block under \"## Receiving webhooks\"")
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, mine, _ := strings.Cut(string(src), "// README:"+"begin\n")
	mine, _, _ = strings.Cut(mine, "\t// README:"+"end")
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(mine, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	return strings.TrimRight(block, "\n"), strings.Join(lines, "\n")
}

// TestReadmeReceiverVerifiesAndReceives runs the README's receiver against
// real endpoint creations: with a secret the caller chose, the handshake
// inside the create call passes; with a generated one it fails, and
// installing the secret then POST /verify is enough.
func TestReadmeReceiverVerifiesAndReceives(t *testing.T) {
	readme, here := readmeBlocks(t)
	if readme != here {
		t.Fatalf("the README's receiver is not the one tested:\nREADME:\n%s\n\ntested:\n%s", readme, here)
	}
	registerReadmeReceiver()
	srv := httptestServer(t, http.DefaultServeMux)
	w := resttest.NewWorld(t, nil)
	w.Clock.Set(time.Now()) // the receiver checks the signature's time against its own clock
	w.StartWorker()

	const chosen = "whsec_c2VjcmV0LWNob3Nlbi1ieS10aGUtY2FsbGVyLTAx"
	t.Setenv("MSGSVC_WEBHOOK_SECRET", chosen)
	ep := w.CreateEndpoint(srv+"/msgsvc", map[string]any{"secret": chosen, "events": []string{"message.received"}})
	if ep.Data["status"] != "active" || ep.Secret != chosen {
		t.Fatalf("with the chosen secret: %v", ep.Data)
	}
	w.Inbound("website", "visitor-readme", "hello readme")
	w.FannedOut()
	id := newest(w, ep.ID)
	w.WaitDelivery(id, "to succeed", func(d *repo.WebhookDelivery) bool {
		return d.Status == "succeeded" && d.LastResponseStatus != nil && *d.LastResponseStatus == 204
	})

	// A generated secret: the receiver cannot know it during the create
	// call, so the endpoint starts unverified; installing it and asking
	// for a verification is enough.
	gen := w.CreateEndpoint(srv+"/msgsvc", nil)
	if gen.Data["status"] != "unverified" {
		t.Fatalf("with a generated secret: %v", gen.Data)
	}
	t.Setenv("MSGSVC_WEBHOOK_SECRET", gen.Secret)
	d := w.Want(w.Do("POST", "/v1/webhook-endpoints/"+gen.ID+"/verify", "test_all", nil), 200, "").Data()
	if d["status"] != "active" || d["verification"].(map[string]any)["verified"] != true || d["secret"] != nil {
		t.Errorf("after installing the secret: %v", d)
	}
	// A chosen secret must look like one.
	for _, bad := range []string{"short", "whsec_short", "whsec_" + strings.Repeat("x", 129), "whsec_has space in it 0123456789"} {
		w.Want(w.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": srv + "/msgsvc", "secret": bad}), 400, "invalid_request")
	}
	w.Want(w.Do("POST", "/v1/webhook-endpoints/we_missing/verify", "test_all", nil), 404, "endpoint_not_found")
}

func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
