package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// verifyEndpoint runs the handshake: a signed endpoint.verification event
// whose data.challenge the endpoint must echo in a 2xx JSON answer within
// the timeout. On success it stores verified_at and sets it on e.
func (s *Service) verifyEndpoint(ctx context.Context, livemode bool, e *repo.WebhookEndpoint) *model.WebhookVerification {
	cfg := s.config()
	failed := func(reason string) *model.WebhookVerification {
		return &model.WebhookVerification{Verified: false, Reason: &reason}
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return failed("no challenge could be made; try again")
	}
	challenge := hex.EncodeToString(b)
	now := s.Clock.Now()
	data, err := json.Marshal(map[string]string{"challenge": challenge})
	if err != nil {
		return failed(err.Error())
	}
	body, err := marshalEnvelope(model.WebhookEnvelope{Event: model.Event{
		ID: repo.NewID("evt_", now), Type: EventEndpointVerification, CreatedAt: model.NewTimestamp(now),
		Livemode: livemode, Data: data,
	}})
	if err != nil {
		return failed(err.Error())
	}
	secrets, err := s.signingSecrets(e, now)
	if err != nil {
		return failed(err.Error())
	}
	ans := cfg.post(ctx, e.URL, body, webhooksig.Header(now, body, secrets...))
	if !ans.OK() {
		return failed(ans.Problem(cfg.timeout()))
	}
	var echo struct {
		Challenge string `json:"challenge"`
	}
	if json.Unmarshal(ans.Body, &echo) != nil || echo.Challenge != challenge {
		return failed("the answer did not echo data.challenge as {\"challenge\": ...}")
	}
	if err := s.Store.SetWebhookVerified(context.WithoutCancel(ctx), e.ID, e.URL, &now); err != nil {
		slog.Error("store webhook verification", "endpoint", e.ID, "err", err)
		return failed("the verification could not be stored; try again")
	}
	e.VerifiedAt = &now
	return &model.WebhookVerification{Verified: true}
}
