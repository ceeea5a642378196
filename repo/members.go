package repo

import (
	"context"
	"time"
)

// MemberCode is an emailed code (sign-in or step-up); only its HMAC is kept.
type MemberCode struct {
	ID         string     `db:"id"`
	Email      string     `db:"email"`
	Purpose    string     `db:"purpose"`
	MemberID   *string    `db:"member_id"`
	CodeHash   string     `db:"code_hash"`
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  time.Time  `db:"expires_at"`
	WrongTries int        `db:"wrong_tries"`
	UsedAt     *time.Time `db:"used_at"`
}

// MemberSession is a signed-in member's session; only the hash of its
// token is kept.
type MemberSession struct {
	ID          string    `db:"id"`
	TokenHash   string    `db:"token_hash"`
	MemberID    string    `db:"member_id"`
	WorkspaceID string    `db:"workspace_id"`
	CreatedAt   time.Time `db:"created_at"`
	LastSeenAt  time.Time `db:"last_seen_at"`
	ExpiresAt   time.Time `db:"expires_at"`
	UserAgent   string    `db:"user_agent"`
}

const (
	memberCodeColumns    = `id, email, purpose, member_id, code_hash, created_at, expires_at, wrong_tries, used_at`
	memberSessionColumns = `id, token_hash, member_id, workspace_id, created_at, last_seen_at, expires_at, user_agent`
)

// MemberByEmail finds the member with an address, in any case, across the
// installation (an address belongs to one member).
func (q Queries) MemberByEmail(ctx context.Context, email string) (*Agent, error) {
	return one[Agent](ctx, q, `SELECT `+agentColumns+` FROM agents WHERE lower(email) = lower($1) AND email <> ''`, email)
}

// Members lists a workspace's members, in name order.
func (q Queries) Members(ctx context.Context, workspaceID string) ([]Agent, error) {
	var out []Agent
	err := q.selectRows(ctx, &out, `SELECT `+agentColumns+` FROM agents WHERE workspace_id = $1 ORDER BY lower(name), id`, workspaceID)
	return out, err
}

// InsertMember adds a member; an address another member has is a
// ConflictError on agents_email_key.
func (q Queries) InsertMember(ctx context.Context, m *Agent) error {
	_, err := q.exec(ctx, `INSERT INTO agents (id, workspace_id, name, email, active, role) VALUES ($1, $2, $3, $4, $5, $6)`,
		m.ID, m.WorkspaceID, m.Name, m.Email, m.Active, m.Role)
	return err
}

// SetMemberRole changes a member's role.
func (q Queries) SetMemberRole(ctx context.Context, workspaceID, id, role string) error {
	n, err := q.exec(ctx, `UPDATE agents SET role = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, id, role)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// LockActiveOwners locks the workspace's active owners until the
// transaction ends and returns their ids, so two changes cannot leave it
// without one.
func (q Queries) LockActiveOwners(ctx context.Context, workspaceID string) ([]string, error) {
	var ids []string
	err := q.selectRows(ctx, &ids, `SELECT id FROM agents WHERE workspace_id = $1 AND role = 'owner' AND active
		ORDER BY id FOR UPDATE`, workspaceID)
	return ids, err
}

// InsertMemberCode stores an emailed code.
func (q Queries) InsertMemberCode(ctx context.Context, c *MemberCode) error {
	_, err := q.exec(ctx, `INSERT INTO member_codes (`+memberCodeColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		c.ID, c.Email, c.Purpose, c.MemberID, c.CodeHash, c.CreatedAt, c.ExpiresAt, c.WrongTries, c.UsedAt)
	return err
}

// MemberCodesSince counts the codes of an address created at or after since
// whose purpose is one of purposes.
func (q Queries) MemberCodesSince(ctx context.Context, email string, purposes []string, since time.Time) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT count(*) FROM member_codes WHERE email = $1 AND purpose = ANY($2) AND created_at >= $3`,
		email, array(purposes), since)
	return n, err
}

// EndMemberCodes ends every unused code of an address and purpose (a new
// one replaces them).
func (q Queries) EndMemberCodes(ctx context.Context, email, purpose string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE member_codes SET used_at = $3 WHERE email = $1 AND purpose = $2 AND used_at IS NULL`,
		email, purpose, at)
	return err
}

// LatestMemberCode is the newest unused code of an address and purpose.
func (q Queries) LatestMemberCode(ctx context.Context, email, purpose string) (*MemberCode, error) {
	return one[MemberCode](ctx, q, `SELECT `+memberCodeColumns+` FROM member_codes
		WHERE email = $1 AND purpose = $2 AND used_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`, email, purpose)
}

// MemberCodeWrongTry counts a wrong try of an unused code and returns the
// tries so far; ErrNotFound when it was used meanwhile.
func (q Queries) MemberCodeWrongTry(ctx context.Context, id string) (int, error) {
	var n int
	err := q.get(ctx, &n, `UPDATE member_codes SET wrong_tries = wrong_tries + 1 WHERE id = $1 AND used_at IS NULL
		RETURNING wrong_tries`, id)
	return n, err
}

// UseMemberCode marks a code used, once: ErrNotFound when it already was.
func (q Queries) UseMemberCode(ctx context.Context, id string, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE member_codes SET used_at = $2 WHERE id = $1 AND used_at IS NULL`, id, at)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// InsertMemberSession stores a session.
func (q Queries) InsertMemberSession(ctx context.Context, s *MemberSession) error {
	_, err := q.exec(ctx, `INSERT INTO member_sessions (`+memberSessionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		s.ID, s.TokenHash, s.MemberID, s.WorkspaceID, s.CreatedAt, s.LastSeenAt, s.ExpiresAt, s.UserAgent)
	return err
}

// MemberSessionByToken finds a session by the hash of its token.
func (q Queries) MemberSessionByToken(ctx context.Context, tokenHash string) (*MemberSession, error) {
	return one[MemberSession](ctx, q, `SELECT `+memberSessionColumns+` FROM member_sessions WHERE token_hash = $1`, tokenHash)
}

// TouchMemberSession moves a session's last_seen_at and expires_at.
func (q Queries) TouchMemberSession(ctx context.Context, id string, lastSeen, expires time.Time) error {
	_, err := q.exec(ctx, `UPDATE member_sessions SET last_seen_at = $2, expires_at = $3 WHERE id = $1`, id, lastSeen, expires)
	return err
}

// MemberSessions lists a member's sessions, newest first.
func (q Queries) MemberSessions(ctx context.Context, memberID string) ([]MemberSession, error) {
	var out []MemberSession
	err := q.selectRows(ctx, &out, `SELECT `+memberSessionColumns+` FROM member_sessions WHERE member_id = $1
		ORDER BY created_at DESC, id DESC`, memberID)
	return out, err
}

// DeleteMemberSession ends one session of a member.
func (q Queries) DeleteMemberSession(ctx context.Context, memberID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM member_sessions WHERE member_id = $1 AND id = $2`, memberID, id)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// DeleteMemberSessions ends every session of a member.
func (q Queries) DeleteMemberSessions(ctx context.Context, memberID string) error {
	_, err := q.exec(ctx, `DELETE FROM member_sessions WHERE member_id = $1`, memberID)
	return err
}

// SetStepUp records that a member verified a code for a purpose.
func (q Queries) SetStepUp(ctx context.Context, memberID, purpose string, at time.Time) error {
	_, err := q.exec(ctx, `INSERT INTO member_step_ups (member_id, purpose, verified_at) VALUES ($1, $2, $3)
		ON CONFLICT (member_id, purpose) DO UPDATE SET verified_at = EXCLUDED.verified_at`, memberID, purpose, at)
	return err
}

// StepUpAt is when a member last verified a code for a purpose
// (ErrNotFound: never).
func (q Queries) StepUpAt(ctx context.Context, memberID, purpose string) (time.Time, error) {
	var at time.Time
	err := q.get(ctx, &at, `SELECT verified_at FROM member_step_ups WHERE member_id = $1 AND purpose = $2`, memberID, purpose)
	return at, err
}
