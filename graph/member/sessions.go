package member

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// HashToken is how a session's token is kept: never the token itself.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// sessionState says whether a session is alive at now (SessionIdle since
// it was last seen, before its absolute end) and whether its last_seen_at
// is due a write (at most once per TouchEvery).
func sessionState(s *repo.MemberSession, now time.Time) (alive, touch bool) {
	alive = now.Before(s.ExpiresAt) && now.Before(s.LastSeenAt.Add(SessionIdle))
	return alive, alive && now.Sub(s.LastSeenAt) >= TouchEvery
}

// open starts a session of a member.
func (s *Service) open(ctx context.Context, m *repo.Agent, userAgent string) (*SignedIn, error) {
	ws, err := s.Store.Workspace(ctx, m.WorkspaceID)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	now := s.Clock.Now()
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	sess := &repo.MemberSession{ID: repo.NewID("mss_", now), TokenHash: HashToken(token), MemberID: m.ID,
		WorkspaceID: m.WorkspaceID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionLifetime), UserAgent: userAgent}
	if err := s.Store.InsertMemberSession(ctx, sess); err != nil {
		return nil, err
	}
	return &SignedIn{Token: token, Member: m, Workspace: ws, Session: sess}, nil
}

// Authenticate finds the live session of a cookie's token and its active
// member (401 sign_in_required otherwise); a session past its idle or
// absolute end is deleted, and last_seen_at written at most once a minute.
func (s *Service) Authenticate(ctx context.Context, token string) (*repo.MemberSession, *repo.Agent, error) {
	return s.authenticate(ctx, token, true)
}

// StillSignedIn says whether a token's session is still live and its
// member active, without renewing it: an open WebSocket asks it now and then
// (nil), and closes once it is not.
func (s *Service) StillSignedIn(ctx context.Context, token string) error {
	_, _, err := s.authenticate(ctx, token, false)
	return err
}

func (s *Service) authenticate(ctx context.Context, token string, renew bool) (*repo.MemberSession, *repo.Agent, error) {
	none := apierr.New(apierr.SignInRequired, "")
	if token == "" || len(token) > 100 {
		return nil, nil, none
	}
	sess, err := s.Store.MemberSessionByToken(ctx, HashToken(token))
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil, none
	}
	if err != nil {
		return nil, nil, err
	}
	now := s.Clock.Now()
	alive, touch := sessionState(sess, now)
	if !alive {
		if err := s.Store.DeleteMemberSession(ctx, sess.MemberID, sess.ID); err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, nil, err
		}
		return nil, nil, none
	}
	m, err := s.Store.Agent(ctx, sess.WorkspaceID, sess.MemberID)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && !m.Active) {
		return nil, nil, none
	}
	if err != nil {
		return nil, nil, err
	}
	if touch && renew {
		if err := s.Store.TouchMemberSession(ctx, sess.ID, now, sess.ExpiresAt); err != nil {
			return nil, nil, err
		}
	}
	return sess, m, nil
}

// Actor is the caller a session's token makes of a GraphQL request, in the
// mode asked for.
func (s *Service) Actor(ctx context.Context, token string, livemode bool) (*auth.Actor, error) {
	sess, m, err := s.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	return &auth.Actor{WorkspaceID: m.WorkspaceID, Livemode: livemode, MemberID: m.ID, Role: m.Role,
		Scopes: auth.RoleScopes(m.Role), Version: auth.ServedVersion, SessionID: sess.ID}, nil
}

// SignOut ends the session of a token (none is no error).
func (s *Service) SignOut(ctx context.Context, token string) error {
	sess, err := s.Store.MemberSessionByToken(ctx, HashToken(token))
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.Store.DeleteMemberSession(ctx, sess.MemberID, sess.ID); err != nil && !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	return nil
}

// signedIn is the signed-in member of a request (403 forbidden for the
// admin token and API keys, which are no person).
func signedIn(ctx context.Context) (*auth.Actor, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if a.MemberID == "" {
		return nil, apierr.New(apierr.Forbidden, "Only a signed-in member has this; the admin token and API keys are no person.")
	}
	return a, nil
}

// Me is the signed-in member.
func (s *Service) Me(ctx context.Context) (*model.Member, error) {
	a, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.Store.Agent(ctx, a.WorkspaceID, a.MemberID)
	if err != nil {
		return nil, err
	}
	return View(m), nil
}

// Sessions lists the signed-in member's live sessions, newest first.
func (s *Service) Sessions(ctx context.Context) ([]*model.MemberSession, error) {
	a, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.MemberSessions(ctx, a.MemberID)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	out := []*model.MemberSession{}
	for i := range rows {
		r := &rows[i]
		if alive, _ := sessionState(r, now); !alive {
			continue
		}
		expires := r.ExpiresAt
		if idle := r.LastSeenAt.Add(SessionIdle); idle.Before(expires) {
			expires = idle
		}
		out = append(out, &model.MemberSession{ID: r.ID, CreatedAt: model.NewTimestamp(r.CreatedAt),
			LastSeenAt: model.NewTimestamp(r.LastSeenAt), ExpiresAt: model.NewTimestamp(expires), UserAgent: r.UserAgent,
			Current: r.ID == a.SessionID})
	}
	return out, nil
}

// EndSession ends one of the signed-in member's sessions (400
// invalid_request for an id that is not one of hers).
func (s *Service) EndSession(ctx context.Context, id string) (bool, error) {
	a, err := signedIn(ctx)
	if err != nil {
		return false, err
	}
	if err := s.Store.DeleteMemberSession(ctx, a.MemberID, id); err != nil {
		if errors.Is(err, repo.ErrNotFound) {
			return false, apierr.New(apierr.InvalidRequest, "You have no session %s.", id)
		}
		return false, err
	}
	return true, nil
}
