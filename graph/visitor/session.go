package visitor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// SessionInput is the body of POST /widget/v1/sessions.
type SessionInput struct {
	WebsiteID    string  `json:"website_id"`
	VisitorToken *string `json:"visitor_token"`
	UserID       *string `json:"user_id"`
	UserHash     *string `json:"user_hash"`
	Name         *string `json:"name"`
	Email        *string `json:"email"`
}

// Session is the answer of POST /widget/v1/sessions.
type Session struct {
	VisitorToken string        `json:"visitor_token"`
	VisitorID    string        `json:"visitor_id"`
	Identified   bool          `json:"identified"`
	Widget       WidgetConfig  `json:"widget"`
	Conversation *Conversation `json:"conversation"`
	Messages     []*Message    `json:"messages"`
}

// WidgetConfig is how the widget looks on this website.
type WidgetConfig struct {
	Color    string `json:"color"`
	Greeting string `json:"greeting"`
}

// identity is who a session's visitor is: a verified user of the website,
// or an anonymous browser.
type identity struct {
	userID string // "" when anonymous
	email  string // only a verified user's
	name   string
}

// Session starts or resumes a visitor's session on a website whose domain
// the page's Origin is. A token of the same website resumes its visitor
// while the verified user stays the same; otherwise a new visitor (and
// token) starts. user_id and email are taken only when user_hash proves
// user_id under the website's identity secret; otherwise the visitor is
// anonymous.
func (svc *Service) Session(ctx context.Context, in SessionInput, origin string) (*Session, error) {
	w, err := svc.Website(ctx, in.WebsiteID, origin)
	if err != nil {
		return nil, err
	}
	id, err := svc.identify(w, in)
	if err != nil {
		return nil, err
	}
	var v *repo.Visitor
	token := ""
	if in.VisitorToken != nil && *in.VisitorToken != "" {
		token = *in.VisitorToken
		v, err = svc.Store.VisitorByToken(ctx, TokenHash(token), svc.Clock.Now())
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, err
		}
		if v != nil && (v.WebsiteID != w.WebsiteID || deref(v.UserID) != id.userID) {
			v = nil
		}
	}
	if v == nil {
		if token, v, err = svc.newVisitor(ctx, w, id); err != nil {
			return nil, err
		}
	}
	if err := svc.knownContact(ctx, v); err != nil {
		return nil, err
	}
	out := &Session{VisitorToken: token, VisitorID: v.ID, Identified: v.UserID != nil,
		Widget: WidgetConfig{Color: w.Color, Greeting: w.Greeting}, Messages: []*Message{}}
	return out, svc.history(ctx, v, out)
}

// identify reads the identity a session claims, verified with the website's
// identity secret.
func (svc *Service) identify(w *repo.WebsiteWidget, in SessionInput) (identity, error) {
	id := identity{name: strings.TrimSpace(deref(in.Name))}
	if len([]rune(id.name)) > 200 {
		return id, apierr.New(apierr.InvalidRequest, "name is longer than 200 characters.")
	}
	if w.IdentitySecretSealed == nil || in.UserID == nil {
		return id, nil
	}
	secret, err := svc.Seal.Open(*w.IdentitySecretSealed, SealAAD(w.WebsiteID))
	if err != nil {
		return id, fmt.Errorf("visitor: identity secret of %s: %w", w.WebsiteID, err)
	}
	userID := strings.TrimSpace(*in.UserID)
	if !verified(secret, userID, deref(in.UserHash)) {
		return id, nil
	}
	if err := CheckUserID(userID); err != nil {
		return id, err
	}
	id.userID = userID
	if in.Email != nil && strings.TrimSpace(*in.Email) != "" {
		if id.email, err = contact.NormalizeEmail(*in.Email); err != nil {
			return id, err
		}
	}
	return id, nil
}

// newVisitor stores a visitor with a new token, without a contact: it is
// given one by its first message (giveContact), or by its session when it
// is a verified user known already (knownContact).
func (svc *Service) newVisitor(ctx context.Context, w *repo.WebsiteWidget, id identity) (string, *repo.Visitor, error) {
	token, hash, err := newToken()
	if err != nil {
		return "", nil, err
	}
	now := svc.Clock.Now()
	v := &repo.Visitor{ID: repo.NewID(visitorPrefix, now), WorkspaceID: w.WorkspaceID, WebsiteID: w.WebsiteID,
		TokenHash: hash, Name: id.name, CreatedAt: now, LastSeenAt: now}
	if id.userID != "" {
		v.UserID = &id.userID
		if id.email != "" {
			v.Email = &id.email
		}
	}
	err = svc.Store.InTx(ctx, func(q repo.Queries) error { return q.InsertVisitor(ctx, v) })
	if err != nil {
		return "", nil, err
	}
	return token, v, nil
}

// knownContact gives a verified user's visitor without a contact the
// contact of its user, when another browser of the user made it: every
// browser of the user shares the same chats.
func (svc *Service) knownContact(ctx context.Context, v *repo.Visitor) error {
	if v.ContactID != "" || v.UserID == nil {
		return nil
	}
	return svc.Store.InTx(ctx, func(q repo.Queries) error {
		ct, err := q.ContactBy(ctx, scope(v.WorkspaceID), "external_id", *v.UserID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v.ContactID = ct.ID
		return q.SetVisitorContact(ctx, v.ID, ct.ID)
	})
}

// giveContact gives a visitor without one its contact, on its first
// message: the live contact of its identity (a verified user's user_id,
// else its visitor id), created with contact.created when missing, with
// the name and verified email of its session. Two first messages at once
// (two tabs, two browsers of a user) end with the same contact.
func (svc *Service) giveContact(ctx context.Context, v *repo.Visitor) error {
	s := scope(v.WorkspaceID)
	created := false
	give := func(q repo.Queries) error {
		locked, err := q.LockVisitor(ctx, v.ID)
		if err != nil {
			return err
		}
		if locked.ContactID != "" {
			v.ContactID = locked.ContactID
			return nil
		}
		ref := cmp.Or(deref(locked.UserID), locked.ID)
		ct, err := q.ContactBy(ctx, s, "external_id", ref)
		if errors.Is(err, repo.ErrNotFound) {
			id := identity{userID: deref(locked.UserID), email: deref(locked.Email), name: locked.Name}
			ct, err = svc.newContact(ctx, q, s, ref, id)
			created = err == nil
		}
		if err != nil {
			return err
		}
		v.ContactID = ct.ID
		return q.SetVisitorContact(ctx, v.ID, ct.ID)
	}
	err := svc.Store.InTx(ctx, give)
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		// Another visitor of the identity made its contact meanwhile.
		created = false
		err = svc.Store.InTx(ctx, give)
	}
	if err == nil && created {
		svc.Events.Committed(ctx)
	}
	return err
}

// newContact captures a visitor as a live contact and records
// contact.created. A verified email already on another contact is left off.
func (svc *Service) newContact(ctx context.Context, q repo.Queries, s repo.Scope, ref string, id identity) (*repo.Contact, error) {
	name := id.name
	if name == "" {
		name = "Website visitor"
	}
	ct := contact.FromChannel(s, "website", ref, name, "captured", svc.Clock.Now())
	if id.email != "" {
		if _, err := q.ContactBy(ctx, s, "email", id.email); errors.Is(err, repo.ErrNotFound) {
			ct.Email = &id.email
		} else if err != nil {
			return nil, err
		}
	}
	if err := q.InsertContact(ctx, ct); err != nil {
		return nil, err
	}
	return ct, svc.Events.Record(ctx, q, s, event.ContactCreated, nil, view.Contact(ct))
}

// history fills a session answer with the visitor's latest chat on the
// website and its last messages.
func (svc *Service) history(ctx context.Context, v *repo.Visitor, out *Session) error {
	s := scope(v.WorkspaceID)
	conv, err := svc.Store.LatestConversation(ctx, s, v.ContactID, "website", v.WebsiteID, false)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rated, err := svc.Store.Rated(ctx, conv.ID)
	if err != nil {
		return err
	}
	out.Conversation = conversationView(conv.ID, conv.Status, rated, conv.CreatedAt)
	msgs, err := svc.Store.LatestVisitorMessages(ctx, s, conv.ID, historySize)
	if err != nil {
		return err
	}
	for i := range msgs {
		out.Messages = append(out.Messages, svc.message(&msgs[i]))
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
