// Package member is the people of a workspace (app.md 1): members and
// their roles, sign-in by emailed code, sessions, and step-up codes.
package member

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// The rules of codes and sessions (app.md 1).
const (
	CodeTTL         = 10 * time.Minute
	MaxWrongTries   = 5
	CodesPerHour    = 5
	SessionIdle     = 12 * time.Hour
	SessionLifetime = 7 * 24 * time.Hour
	// TouchEvery bounds how often a session's last_seen_at is written:
	// idle renewal without a write per request.
	TouchEvery = time.Minute
	// StepUpTTL is how long a verified step-up code counts.
	StepUpTTL = 10 * time.Minute
	// PurposeSignIn is a sign-in code's purpose; the step-up purposes are
	// StepUpPurposes.
	PurposeSignIn = "sign_in"
)

// StepUpPurposes are what a step-up code may be asked for; each is its own.
var StepUpPurposes = []string{"create_key", "roll_key", "show_endpoint_secret"}

// Store is what the service reads and writes; *repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	Workspace(ctx context.Context, id string) (*repo.Workspace, error)
	Agent(ctx context.Context, workspaceID, id string) (*repo.Agent, error)
	MemberByEmail(ctx context.Context, email string) (*repo.Agent, error)
	Members(ctx context.Context, workspaceID string) ([]repo.Agent, error)
	InsertMember(ctx context.Context, m *repo.Agent) error
	SetAgentActive(ctx context.Context, workspaceID, id string, active bool) error
	InsertMemberCode(ctx context.Context, c *repo.MemberCode) error
	MemberCodesSince(ctx context.Context, email string, purposes []string, since time.Time) (int, error)
	EndMemberCodes(ctx context.Context, email, purpose string, at time.Time) error
	LatestMemberCode(ctx context.Context, email, purpose string) (*repo.MemberCode, error)
	MemberCodeWrongTry(ctx context.Context, id string) (int, error)
	UseMemberCode(ctx context.Context, id string, at time.Time) error
	InsertMemberSession(ctx context.Context, s *repo.MemberSession) error
	MemberSessionByToken(ctx context.Context, tokenHash string) (*repo.MemberSession, error)
	TouchMemberSession(ctx context.Context, id string, lastSeen, expires time.Time) error
	MemberSessions(ctx context.Context, memberID string) ([]repo.MemberSession, error)
	DeleteMemberSession(ctx context.Context, memberID, id string) error
	SetStepUp(ctx context.Context, memberID, purpose string, at time.Time) error
	StepUpAt(ctx context.Context, memberID, purpose string) (time.Time, error)
}

// Mailer sends one plain-text mail now; mail.Notices' SendNow is one (the
// relay the owner notices use). It returns mail.ErrNoRelay without one.
type Mailer interface {
	SendNow(ctx context.Context, to, subject, body string) error
}

// Service is the rules of members, codes, sessions and step-up.
type Service struct {
	Store Store
	Clock clock.Clock
	// Secret keys the HMAC codes are stored as (MSGSVC_SECRET's first).
	Secret string
	// Mail sends codes; nil, or a relay-less one, falls back to the log
	// in development and to a warning otherwise.
	Mail Mailer
	// Development writes codes to the log when no relay sends them
	// (MSGSVC_ENV other than production).
	Development bool
	// Sent, when set, hears of each code mail's outcome after it was sent
	// (tests wait on it); nil in production.
	Sent func(to string, err error)
}

// View is a member as the API shows her.
func View(m *repo.Agent) *model.Member {
	return &model.Member{ID: m.ID, Name: m.Name, Email: m.Email, Role: m.Role, Active: m.Active}
}

// mailCode sends a code in the background, so the answer takes as long
// for a stranger as for a member; the relay has 30 s.
func (s *Service) mailCode(ctx context.Context, to, subject, body, code string) {
	ctx = context.WithoutCancel(ctx)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		err := mail.ErrNoRelay
		if s.Mail != nil {
			err = s.Mail.SendNow(ctx, to, subject, body)
		}
		switch {
		case errors.Is(err, mail.ErrNoRelay) && s.Development:
			// app.md 1: in development without a relay the code is in the log.
			slog.Info("no SMTP relay (MSGSVC_SMTP_RELAY): the code is here instead of a mail", "to", to, "code", code,
				"subject", subject)
			err = nil
		case err != nil:
			slog.Warn("a code mail was not sent", "to", to, "err", err)
		}
		if s.Sent != nil {
			s.Sent(to, err)
		}
	}()
}
