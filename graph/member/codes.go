package member

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/mail"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// NormalEmail is how addresses are compared and stored: trimmed, lower case.
func NormalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// checkEmail refuses what is no address at all (the same for members and
// strangers).
func checkEmail(email string) error {
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		return apierr.New(apierr.InvalidEmail, "%q is not an email address.", email)
	}
	return nil
}

// newCode is 6 random digits from crypto/rand.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// hash is how a code is kept: an HMAC of its id and digits under the
// service secret, so a copy of the table cannot be tried offline.
func (s *Service) hash(id, code string) string {
	m := hmac.New(sha256.New, []byte("member-code:"+s.Secret))
	m.Write([]byte(id + ":" + code))
	return hex.EncodeToString(m.Sum(nil))
}

// Verdicts of a code tried (verdict).
const (
	codeOK      = "ok"
	codeWrong   = "wrong"
	codeUsed    = "used"
	codeExpired = "expired"
	codeSpent   = "spent"
)

// verdict decides a code tried at now: used once, valid CodeTTL, ended
// by MaxWrongTries wrong tries.
func verdict(c *repo.MemberCode, now time.Time, matches bool) string {
	switch {
	case c.UsedAt != nil:
		return codeUsed
	case !now.Before(c.ExpiresAt):
		return codeExpired
	case c.WrongTries >= MaxWrongTries:
		return codeSpent
	case !matches:
		return codeWrong
	}
	return codeOK
}

// overLimit says whether an address has had its codes for the hour.
func overLimit(sent int) bool { return sent >= CodesPerHour }

// issue stores a new code for an address and purpose (ending the ones
// before it), unless the address had CodesPerHour codes of purposes in
// the last hour; memberID is nil for a stranger, whose code never works.
func (s *Service) issue(ctx context.Context, email, purpose string, memberID *string, purposes []string) (string, error) {
	now := s.Clock.Now()
	sent, err := s.Store.MemberCodesSince(ctx, email, purposes, now.Add(-time.Hour))
	if err != nil {
		return "", err
	}
	if overLimit(sent) {
		e := apierr.New(apierr.RateLimited, "At most %d codes an hour are sent to an address; try again later.", CodesPerHour)
		e.RetryAfter = time.Hour
		return "", e
	}
	code, err := newCode()
	if err != nil {
		return "", err
	}
	id := repo.NewID("mcd_", now)
	if err := s.Store.EndMemberCodes(ctx, email, purpose, now); err != nil {
		return "", err
	}
	err = s.Store.InsertMemberCode(ctx, &repo.MemberCode{ID: id, Email: email, Purpose: purpose, MemberID: memberID,
		CodeHash: s.hash(id, code), CreatedAt: now, ExpiresAt: now.Add(CodeTTL)})
	return code, err
}

// use tries a code of an address and purpose: the member's id when it is
// right (and marks it used), else 401 invalid_code, a wrong try counted.
func (s *Service) use(ctx context.Context, email, purpose, code string) (string, error) {
	invalid := apierr.New(apierr.InvalidCode, "")
	c, err := s.Store.LatestMemberCode(ctx, email, purpose)
	if errors.Is(err, repo.ErrNotFound) {
		return "", invalid
	}
	if err != nil {
		return "", err
	}
	now := s.Clock.Now()
	matches := hmac.Equal([]byte(s.hash(c.ID, strings.TrimSpace(code))), []byte(c.CodeHash))
	switch verdict(c, now, matches) {
	case codeOK:
	case codeWrong:
		if _, err := s.Store.MemberCodeWrongTry(ctx, c.ID); err != nil && !errors.Is(err, repo.ErrNotFound) {
			return "", err
		}
		return "", invalid
	default:
		return "", invalid
	}
	if err := s.Store.UseMemberCode(ctx, c.ID, now); err != nil {
		if errors.Is(err, repo.ErrNotFound) {
			return "", invalid
		}
		return "", err
	}
	if c.MemberID == nil {
		return "", invalid
	}
	return *c.MemberID, nil
}

// RequestSignInCode mails a sign-in code to a member's address; a
// stranger's (or a switched-off member's) address gets the same answer and
// no mail. 429 rate_limited past CodesPerHour an hour for the address.
func (s *Service) RequestSignInCode(ctx context.Context, email string) error {
	email = NormalEmail(email)
	if err := checkEmail(email); err != nil {
		return err
	}
	m, err := s.Store.MemberByEmail(ctx, email)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	var memberID *string
	if err == nil && m.Active {
		memberID = &m.ID
	}
	code, err := s.issue(ctx, email, PurposeSignIn, memberID, []string{PurposeSignIn})
	if err != nil || memberID == nil {
		return err
	}
	s.mailCode(ctx, email, "Your msgsvc sign-in code: "+code,
		"Your code to sign in to msgsvc is "+code+".\n\nIt works once, for 10 minutes. If you did not ask for it, ignore this mail.\n", code)
	return nil
}

// SignedIn is a new session: Token goes in the cookie, never stored.
type SignedIn struct {
	Token     string
	Member    *repo.Agent
	Workspace *repo.Workspace
	Session   *repo.MemberSession
}

// SignIn checks a sign-in code and opens a session (401 invalid_code when
// the code is wrong, expired, used or ended by wrong tries).
func (s *Service) SignIn(ctx context.Context, email, code, userAgent string) (*SignedIn, error) {
	email = NormalEmail(email)
	id, err := s.use(ctx, email, PurposeSignIn, code)
	if err != nil {
		return nil, err
	}
	m, err := s.Store.MemberByEmail(ctx, email)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && (m.ID != id || !m.Active)) {
		return nil, apierr.New(apierr.InvalidCode, "")
	}
	if err != nil {
		return nil, err
	}
	return s.open(ctx, m, userAgent)
}
