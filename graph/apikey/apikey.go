// Package apikey is the portal's side of API keys: listing them, creating
// one (its secret shown once, stored hashed), rolling one with a grace
// period and revoking one (docs/reference.md, Internal dashboards). Creating
// and rolling need step-up; the workspace owner is mailed of both.
package apikey

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Step-up purposes (app.md section 1).
const (
	PurposeCreate = "create_key"
	PurposeRoll   = "roll_key"
)

// MaxGraceHours bounds a roll's grace period (service-api.md Limits).
const MaxGraceHours = 168

// StepUp refuses a caller without a fresh code for a purpose (403
// step_up_required); member.Service is one.
type StepUp interface {
	RequireStepUp(ctx context.Context, purpose string) error
}

// KeyChanges tells every serving process that keys changed, so none keeps
// serving a revoked or rolled key from its cache (auth.KeyChangeNotifier).
type KeyChanges interface {
	KeysChanged(ctx context.Context)
}

// Store is what the service reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	APIKeyRecords(ctx context.Context, workspaceID string) ([]repo.APIKeyRecord, error)
	Websites(ctx context.Context, s repo.Scope) ([]repo.Website, error)
}

// Service manages a workspace's keys for its developers, admins and owners
// and the admin token.
type Service struct {
	Store Store
	Clock clock.Clock
	// StepUp is nil until wired: then every member is refused
	// step_up_required (the admin token never needs it).
	StepUp StepUp
	// Changes is nil in tests without a cache.
	Changes KeyChanges
}

// stepUp asks for the purpose's fresh code, unless the caller is the admin
// token.
func (s *Service) stepUp(ctx context.Context, a *auth.Actor, purpose string) error {
	if a.Admin {
		return nil
	}
	if s.StepUp == nil {
		return apierr.New(apierr.StepUpRequired, "A fresh emailed code for %s is needed.", purpose)
	}
	return s.StepUp.RequireStepUp(ctx, purpose)
}

func (s *Service) changed(ctx context.Context) {
	if s.Changes != nil {
		s.Changes.KeysChanged(ctx)
	}
}
