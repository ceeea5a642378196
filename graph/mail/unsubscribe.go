package mail

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Unsubscribe is what an unsubscribe token names: one contact of one
// workspace and mode, and the domain that mailed it (one token
// per contact and sending domain).
type Unsubscribe struct {
	WorkspaceID string
	Livemode    bool
	ContactID   string
	Domain      string
}

// ErrBadToken is an unsubscribe token that was not made by this service.
var ErrBadToken = errors.New("mail: the unsubscribe link is not valid")

// Links makes and reads the signed unsubscribe links.
type Links struct {
	// Secrets sign tokens (the first) and check them (every one).
	Secrets   signing.Secrets
	PublicURL string
}

const tokenVersion = "u1"

// Token is the signed token of u: deterministic, so a contact keeps one
// link per sending domain.
func (l Links) Token(u Unsubscribe) string {
	mode := "0"
	if u.Livemode {
		mode = "1"
	}
	payload := strings.Join([]string{tokenVersion, u.WorkspaceID, mode, u.ContactID, u.Domain}, "|")
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(payload)) + "." + enc.EncodeToString([]byte(unsubscribeMAC(l.Secrets.Signing(), payload)))
}

// URL is the List-Unsubscribe link of u.
func (l Links) URL(u Unsubscribe) string {
	return strings.TrimRight(l.PublicURL, "/") + "/unsubscribe/" + l.Token(u)
}

func unsubscribeMAC(secret, payload string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("msgsvc-unsubscribe\x00" + payload))
	return string(m.Sum(nil)[:18])
}

// Parse checks a token's signature (in constant time) and reads it.
func (l Links) Parse(token string) (Unsubscribe, error) {
	body, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 1024 {
		return Unsubscribe{}, ErrBadToken
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !l.Secrets.Verify(string(mac), func(secret string) string { return unsubscribeMAC(secret, string(payload)) }) {
		return Unsubscribe{}, ErrBadToken
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 5 || parts[0] != tokenVersion || (parts[2] != "0" && parts[2] != "1") {
		return Unsubscribe{}, ErrBadToken
	}
	return Unsubscribe{WorkspaceID: parts[1], Livemode: parts[2] == "1", ContactID: parts[3], Domain: parts[4]}, nil
}

// Scope is the workspace and mode of the token's contact.
func (u Unsubscribe) Scope() repo.Scope {
	return repo.Scope{WorkspaceID: u.WorkspaceID, Livemode: u.Livemode}
}

// UnsubscribeStore reads and writes the contact a token names.
type UnsubscribeStore interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	Contact(ctx context.Context, s repo.Scope, id string) (*repo.Contact, error)
}

// Unsubscriber answers the List-Unsubscribe links: a confirmation page
// (GET) and the one-click opt-out (POST, RFC 8058), no login.
type Unsubscriber struct {
	Store  UnsubscribeStore
	Links  Links
	Clock  clock.Clock
	Events event.Recorder
}

// Address is the address a token unsubscribes and whether it already is.
func (u *Unsubscriber) Address(ctx context.Context, token string) (address string, done bool, err error) {
	t, err := u.Links.Parse(token)
	if err != nil {
		return "", false, err
	}
	c, err := u.Store.Contact(ctx, t.Scope(), t.ContactID)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && c.Email == nil) {
		return "", false, ErrBadToken // the contact is gone
	}
	if err != nil {
		return "", false, err
	}
	return *c.Email, c.OptOutEmail, nil
}

// Unsubscribe sets opt_outs.email of the token's contact (once; a repeat
// changes nothing) and records contact.updated (contact.SetOptOut).
func (u *Unsubscriber) Unsubscribe(ctx context.Context, token string) (string, error) {
	t, err := u.Links.Parse(token)
	if err != nil {
		return "", err
	}
	s := t.Scope()
	var address string
	err = u.Store.InTx(ctx, func(q repo.Queries) error {
		now := u.Clock.Now()
		if _, err := contact.SetOptOut(ctx, q, u.Events, s, contact.OptOut{Channel: "email", Kind: contact.All,
			Stop: true, ContactID: t.ContactID}, now); err != nil {
			return err
		}
		c, err := q.Contact(ctx, s, t.ContactID)
		if errors.Is(err, repo.ErrNotFound) || (err == nil && c.Email == nil) {
			return ErrBadToken
		}
		if err != nil {
			return err
		}
		address = *c.Email
		return nil
	})
	if err != nil {
		return "", err
	}
	u.Events.Committed(ctx)
	return address, nil
}
