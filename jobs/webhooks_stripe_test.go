package jobs_test

import (
	"encoding/json"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
	stripewebhook "github.com/stripe/stripe-go/v82/webhook"
)

// TestStripeSDKVerifiesDeliveredEvents: a receiver written for Stripe
// verifies a msgsvc delivery with stripe-go's own check, given the
// Service-Signature header and the endpoint's secret, and finds an
// "object": "event" envelope. (stripe-go's ConstructEvent cannot decode
// the body: msgsvc's data is the resource itself, whose "object" is a
// string, where Stripe's data is {"object": resource}; docs/api.md says
// so.) The test clock is not the wall clock, so the tolerance is off.
func TestStripeSDKVerifiesDeliveredEvents(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-stripe", "hello stripe")
	got := rc.WaitEvents(t, 1)[0]
	header := got.Header.Get("Service-Signature")

	if err := stripewebhook.ValidatePayloadIgnoringTolerance(got.Body, header, ep.Secret); err != nil {
		t.Fatalf("stripe-go refused the signature: %v", err)
	}
	var envelope struct {
		ID, Object, Type string
		Livemode         bool
	}
	if err := json.Unmarshal(got.Body, &envelope); err != nil {
		t.Fatal(err)
	}
	if envelope.Object != "event" || envelope.ID != got.ID() || envelope.Type != "message.received" || envelope.Livemode {
		t.Errorf("envelope %+v, want object \"event\"", envelope)
	}
	// The same body, tampered with, fails the SDK's check.
	var tampered map[string]any
	if err := json.Unmarshal(got.Body, &tampered); err != nil {
		t.Fatal(err)
	}
	tampered["type"] = "message.sent"
	body, _ := json.Marshal(tampered)
	if err := stripewebhook.ValidatePayloadIgnoringTolerance(body, header, ep.Secret); err == nil {
		t.Error("stripe-go accepted a tampered body")
	}
}
