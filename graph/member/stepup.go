package member

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

func checkPurpose(purpose string) error {
	if !slices.Contains(StepUpPurposes, purpose) {
		return apierr.New(apierr.InvalidRequest, "%q is no step-up purpose; one of create_key, roll_key, show_endpoint_secret.", purpose)
	}
	return nil
}

// stepUpMember is the signed-in member asking for or verifying a step-up
// code of a purpose.
func (s *Service) stepUpMember(ctx context.Context, purpose string) (*auth.Actor, *repo.Agent, error) {
	a, err := signedIn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPurpose(purpose); err != nil {
		return nil, nil, err
	}
	m, err := s.Store.Agent(ctx, a.WorkspaceID, a.MemberID)
	return a, m, err
}

// stepUpFresh says whether a step-up verified at is still good at now.
func stepUpFresh(at, now time.Time) bool { return now.Before(at.Add(StepUpTTL)) }

// RequestStepUpCode mails the signed-in member a code for one purpose
// (429 rate_limited past CodesPerHour step-up codes an hour).
func (s *Service) RequestStepUpCode(ctx context.Context, purpose string) (bool, error) {
	_, m, err := s.stepUpMember(ctx, purpose)
	if err != nil {
		return false, err
	}
	email := NormalEmail(m.Email)
	code, err := s.issue(ctx, email, purpose, &m.ID, StepUpPurposes)
	if err != nil {
		return false, err
	}
	s.mailCode(ctx, email, "Your msgsvc confirmation code: "+code,
		"Your code to confirm "+purpose+" in msgsvc is "+code+".\n\nIt works once, for 10 minutes, for this action only. "+
			"If you did not ask for it, sign out of your sessions and tell your workspace's owner.\n", code)
	return true, nil
}

// VerifyStepUp checks a step-up code of the signed-in member for its
// purpose (401 invalid_code otherwise); the purpose then counts for
// StepUpTTL, and her session is renewed.
func (s *Service) VerifyStepUp(ctx context.Context, purpose, code string) (bool, error) {
	a, m, err := s.stepUpMember(ctx, purpose)
	if err != nil {
		return false, err
	}
	id, err := s.use(ctx, NormalEmail(m.Email), purpose, code)
	if err != nil {
		return false, err
	}
	if id != m.ID {
		return false, apierr.New(apierr.InvalidCode, "")
	}
	now := s.Clock.Now()
	if err := s.Store.SetStepUp(ctx, m.ID, purpose, now); err != nil {
		return false, err
	}
	if a.SessionID != "" {
		if err := s.Store.TouchMemberSession(ctx, a.SessionID, now, now.Add(SessionLifetime)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// RequireStepUp passes the admin token and a member who verified a code
// for purpose in the last StepUpTTL; anyone else is refused 403
// step_up_required naming the purpose.
func (s *Service) RequireStepUp(ctx context.Context, purpose string) error {
	a, err := auth.From(ctx)
	if err != nil {
		return err
	}
	if a.Admin {
		return nil
	}
	required := apierr.New(apierr.StepUpRequired, "This needs a fresh emailed code for %s: requestStepUpCode, then verifyStepUp.", purpose)
	required.Purpose = purpose
	if a.MemberID == "" {
		return required
	}
	at, err := s.Store.StepUpAt(ctx, a.MemberID, purpose)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && !stepUpFresh(at, s.Clock.Now())) {
		return required
	}
	return err
}
