package webhook

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// PurposeShowEndpointSecret is the step-up purpose of showing a signing
// secret (app.md section 1: each purpose needs its own code).
const PurposeShowEndpointSecret = "show_endpoint_secret"

// StepUp asks for a fresh emailed code verified for a purpose: it answers
// step_up_required unless the caller has one (or is the admin token).
// graph/member's Service is the real one.
type StepUp interface {
	RequireStepUp(ctx context.Context, purpose string) error
}

// ShowSecret returns an endpoint's current signing secret, to a caller
// who stepped up for it. Without a StepUp wired only the admin token may.
func (s *Service) ShowSecret(ctx context.Context, id string) (*model.WebhookEndpointSecret, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case s.StepUp != nil:
		err = s.StepUp.RequireStepUp(ctx, PurposeShowEndpointSecret)
	case !a.Admin:
		err = apierr.New(apierr.StepUpRequired, "Showing a signing secret needs a fresh emailed code (purpose %s).", PurposeShowEndpointSecret)
	}
	if err != nil {
		return nil, err
	}
	e, err := s.endpointOf(ctx, a, id)
	if err != nil {
		return nil, err
	}
	secret, err := s.openSecret(e.ID, e.Secret)
	if err != nil {
		return nil, err
	}
	out := &model.WebhookEndpointSecret{ID: e.ID, Secret: secret}
	if e.PreviousSecret != nil && e.PreviousSecretUntil != nil && s.Clock.Now().Before(*e.PreviousSecretUntil) {
		out.PreviousSecretUntil = model.TimestampPtr(e.PreviousSecretUntil)
	}
	return out, nil
}
