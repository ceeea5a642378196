package jobs_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// onlyMessages subscribes to message.received alone, so each inbound
// message makes one delivery.
var onlyMessages = map[string]any{"events": []string{"message.received"}}

func TestDeliveryIsSignedAndCarriesTheStoredEnvelope(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	if !strings.HasPrefix(ep.Secret, "whsec_") || len(ep.Secret) < len("whsec_")+64 {
		t.Fatalf("secret %q: want whsec_ and 32 random bytes", ep.Secret)
	}
	msg := w.Inbound("website", "visitor-1", "hello there")["message"].(map[string]any)

	got := rc.WaitEvents(t, 1)[0]
	if got.Type() != "message.received" || got.Data()["id"] != msg["id"] || got.Data()["text"] != "hello there" {
		t.Fatalf("event %s", got.Body)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	header := got.Header.Get("Service-Signature")
	if err := webhooksig.Verify(header, got.Body, w.Clock.Now(), ep.Secret); err != nil {
		t.Errorf("signature %q: %v", header, err)
	}
	if want := "t=" + itoa(w.Clock.Now().Unix()) + ",v1="; !strings.HasPrefix(header, want) || strings.Count(header, "v1=") != 1 {
		t.Errorf("signature header %q, want one v1 at the clock's time", header)
	}
	// GET /v1/events/{id} answers exactly what the endpoint received.
	stored := w.Want(w.Do("GET", "/v1/events/"+got.ID(), "webhooks", nil), 200, "").Body["data"]
	if !reflect.DeepEqual(stored, got.Envelope) {
		t.Errorf("GET /v1/events = %v\nreceived      = %v", stored, got.Envelope)
	}
	if got.Envelope["livemode"] != false || got.Envelope["metadata_only"] != nil {
		t.Errorf("sandbox envelope: livemode %v, metadata_only %v", got.Envelope["livemode"], got.Envelope["metadata_only"])
	}

	ds := w.Deliveries(ep.ID, "test_all")
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(ds))
	}
	d := w.WaitDelivery(ds[0]["id"].(string), "succeeded", func(d *repo.WebhookDelivery) bool { return d.Status == "succeeded" })
	if d.Attempts != 1 || *d.LastResponseStatus != 200 || d.LastError != nil || d.NextAttemptAt != nil || d.EventID != got.ID() {
		t.Errorf("delivery %+v", d)
	}
}

func TestRolledSecretCoSignsDuringGrace(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)

	for _, bad := range []any{-1, 169, "24", nil} {
		w.Want(w.Do("POST", "/v1/webhook-endpoints/"+ep.ID+"/roll-secret", "test_all", map[string]any{"grace_hours": bad}), 400, "invalid_request")
	}
	rolled := w.Want(w.Do("POST", "/v1/webhook-endpoints/"+ep.ID+"/roll-secret", "test_all", map[string]any{"grace_hours": 24}), 200, "").Data()
	newSecret, _ := rolled["secret"].(string)
	if rolled["id"] != ep.ID || rolled["grace_hours"] != 24.0 || !strings.HasPrefix(newSecret, "whsec_") || newSecret == ep.Secret {
		t.Fatalf("roll answered %v", rolled)
	}

	w.Inbound("website", "visitor-roll", "during grace")
	during := rc.WaitEvents(t, 1)[0]
	header := during.Header.Get("Service-Signature")
	if strings.Count(header, "v1=") != 2 {
		t.Fatalf("during grace the header is %q, want two v1", header)
	}
	for _, secret := range []string{newSecret, ep.Secret} {
		if err := webhooksig.Verify(header, during.Body, w.Clock.Now(), secret); err != nil {
			t.Errorf("during grace, %s…: %v", secret[:10], err)
		}
	}

	w.Clock.Advance(24*time.Hour + time.Millisecond)
	w.Inbound("website", "visitor-roll", "after grace")
	after := rc.WaitEvents(t, 2)[1]
	header = after.Header.Get("Service-Signature")
	if strings.Count(header, "v1=") != 1 || webhooksig.Verify(header, after.Body, w.Clock.Now(), newSecret) != nil {
		t.Errorf("after grace the header is %q, want one v1 of the new secret", header)
	}
	if webhooksig.Verify(header, after.Body, w.Clock.Now(), ep.Secret) == nil {
		t.Errorf("after grace the old secret still verifies")
	}

	// A roll without grace drops the old secret at once.
	w.Want(w.Do("POST", "/v1/webhook-endpoints/"+ep.ID+"/roll-secret", "test_all", map[string]any{"grace_hours": 0}), 200, "")
	w.Inbound("website", "visitor-roll", "no grace")
	header = rc.WaitEvents(t, 3)[2].Header.Get("Service-Signature")
	if strings.Count(header, "v1=") != 1 {
		t.Errorf("after a roll without grace the header is %q", header)
	}
}

func TestMetadataOnlyEndpointGetsRedactedEnvelope(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	full, meta := resttest.NewReceiver(t, nil), resttest.NewReceiver(t, nil)
	all := map[string]any{"events": []string{"*"}, "channels": []string{"email"}}
	w.CreateEndpoint(full.URL, all)
	w.CreateEndpoint(meta.URL, map[string]any{"events": []string{"*"}, "channels": []string{"email"}, "metadataOnly": true})

	w.Want(w.Do("POST", "/v1/test/inbound", "test_all", map[string]any{"channel": "email",
		"from": "secret.person@example.com", "name": "Secret Person", "text": "my card is 4242", "subject": "private"}), 201, "")
	// contact.created, conversation.created, message.received; the contact
	// event is outside the conversation's order, so match by id.
	fullByID := map[string]resttest.Request{}
	for _, f := range full.WaitEvents(t, 3) {
		fullByID[f.ID()] = f
	}
	metaEvents := meta.WaitEvents(t, 3)
	var msg map[string]any
	var msgEventID string
	for _, m := range metaEvents {
		f := fullByID[m.ID()]
		if m.Envelope["metadata_only"] != true {
			t.Errorf("%s: metadata_only is %v", m.Type(), m.Envelope["metadata_only"])
		}
		for _, secret := range []string{"Secret Person", "secret.person@example.com", "4242", "private"} {
			if strings.Contains(string(m.Body), secret) {
				t.Errorf("%s carries %q: %s", m.Type(), secret, m.Body)
			}
			if !strings.Contains(string(f.Body), secret) && m.Type() == "message.received" && secret != "private" {
				t.Errorf("the full %s lacks %q", m.Type(), secret)
			}
		}
		if m.Data()["id"] != f.Data()["id"] || m.Data()["object"] != f.Data()["object"] || m.Type() != f.Type() {
			t.Errorf("ids differ: %s vs %s", m.Body, f.Body)
		}
		if m.Type() == "message.received" {
			msg, msgEventID = m.Data(), m.ID()
		}
	}
	sender, _ := msg["sender"].(map[string]any)
	if msg["status"] != "received" || msg["conversation_id"] == nil || msg["created_at"] == nil || sender["type"] != "visitor" {
		t.Errorf("metadata kept too little: %v", msg)
	}
	for _, field := range []string{"text", "html", "html_raw", "email"} {
		if _, ok := msg[field]; ok {
			t.Errorf("message.%s survived redaction", field)
		}
	}
	if _, ok := sender["name"]; ok {
		t.Errorf("sender.name survived redaction")
	}
	// The event itself stays whole.
	stored := w.Want(w.Do("GET", "/v1/events/"+msgEventID, "test_all", nil), 200, "").Data()
	if stored["data"].(map[string]any)["text"] != "my card is 4242" || stored["metadata_only"] != nil {
		t.Errorf("GET /v1/events: %v", stored)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

var _ = http.StatusOK

func TestSigningSecretsAreSealedWithTheServiceSecret(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	var sealed []byte
	if err := w.Store.DB.Get(&sealed, `SELECT secret FROM webhook_endpoints WHERE id = $1`, ep.ID); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), ep.Secret[len("whsec_"):]) {
		t.Fatalf("the secret is stored in the clear")
	}
	// A service with another MSGSVC_SECRET cannot sign with it, and says so.
	cfg := w.Config
	cfg.Secret = "another-secret-0123456789"
	other := graph.NewServices(cfg)
	w.Inbound("website", "visitor-sealed", "hello")
	if err := other.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	id := newest(w, ep.ID)
	if err := other.Webhooks.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if d := w.Delivery(id); d.Status != "retrying" || !strings.Contains(*d.LastError, "cannot be decrypted") || len(rc.Events()) != 0 {
		t.Errorf("with the wrong service secret: %+v", d)
	}
}
