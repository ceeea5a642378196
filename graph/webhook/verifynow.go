package webhook

import (
	"context"
	"regexp"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// callerSecret is the form of a secret the caller chooses at creation: the
// whsec_ prefix and 24 to 128 characters of base64 (either alphabet) or
// hex, as Svix and Stripe secrets look; at least 24 characters keep it
// beyond guessing.
var callerSecret = regexp.MustCompile(`^whsec_[A-Za-z0-9+/=_-]{24,128}$`)

// chosenSecret is the caller's secret when it gave one, else a new one.
// Choosing it lets a receiver hold the secret before the create call, so
// it can verify the handshake that runs inside that call.
func chosenSecret(in *string) (string, error) {
	if in == nil {
		return newWebhookSecret()
	}
	if !callerSecret.MatchString(*in) {
		return "", apierr.New(apierr.InvalidRequest, "secret must be whsec_ followed by 24 to 128 characters of A-Z, a-z, 0-9, +, /, =, _ or -.")
	}
	return *in, nil
}

// VerifyEndpoint is POST /v1/webhook-endpoints/{id}/verify: the handshake
// runs again, now, with the caller's mode; the answer is the endpoint with
// its verification. An endpoint already verified is verified again (its
// verified_at moves; it keeps receiving what it received).
func (s *Service) VerifyEndpoint(ctx context.Context, id string) (*model.WebhookEndpoint, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.endpointOf(ctx, a, id)
	if err != nil {
		return nil, err
	}
	verification := s.verifyAndPlan(ctx, a.Livemode, e, s.Clock.Now())
	out := toWebhookEndpoint(e)
	out.Verification = verification
	return out, nil
}
