// Package visitor is the website visitor's side of website chat:
// widget sessions with Intercom-style identity verification, visitor
// messages (through package inbound), ratings of closed chats, and the
// delivered/read receipts a widget moves outbound messages forward with.
// Everything here is live data.
package visitor

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what the visitor side reads outside its transactions;
// repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	WebsiteWidget(ctx context.Context, websiteID string) (*repo.WebsiteWidget, error)
	Workspace(ctx context.Context, id string) (*repo.Workspace, error)
	VisitorByToken(ctx context.Context, tokenHash string, now time.Time) (*repo.Visitor, error)
	Account(ctx context.Context, workspaceID, channel, id string) (*repo.Account, error)
	Contact(ctx context.Context, s repo.Scope, id string) (*repo.Contact, error)
	Conversation(ctx context.Context, s repo.Scope, id string) (*repo.Conversation, error)
	LatestConversation(ctx context.Context, s repo.Scope, contactID, channel, accountID string, comment bool) (*repo.Conversation, error)
	LatestVisitorMessages(ctx context.Context, s repo.Scope, conversationID string, n int) ([]repo.Message, error)
	Rated(ctx context.Context, conversationID string) (bool, error)
	UndeliveredWebsiteMessages(ctx context.Context, contactIDs []string) ([]repo.PendingMessage, error)
	LatestWebsiteChats(ctx context.Context, contactIDs []string) ([]repo.ChatState, error)
	WebsiteChanges(ctx context.Context, since time.Time) ([]string, error)
	VisitorContacts(ctx context.Context, visitorIDs []string) ([]repo.VisitorContact, error)
}

// Inbound takes a visitor's message; inbound.Service is one.
type Inbound interface {
	Receive(ctx context.Context, s repo.Scope, acc *repo.Account, m inbound.Message) (*model.InboundResult, error)
}

// FileLinks signs links to stored files; files.Service is one.
type FileLinks interface {
	URL(id string) string
	SignAttachments(msgs ...*model.Message)
}

// Service is the visitor API's domain.
type Service struct {
	Store   Store
	Clock   clock.Clock
	Events  event.Recorder
	Inbound Inbound
	Files   FileLinks
	// Seal opens the websites' identity secrets.
	Seal seal.Key
}

// MaxText is the longest visitor message, in characters.
const MaxText = 4096

// historySize is how many messages a session answer carries.
const historySize = 50

// Scope is the live scope of a website's workspace.
func scope(workspaceID string) repo.Scope {
	return repo.Scope{WorkspaceID: workspaceID, Livemode: true}
}

// SealAAD binds a sealed identity secret to its website.
func SealAAD(websiteID string) string { return "website_widgets:" + websiteID }

// UserHash is Intercom's identity verification: hex(HMAC-SHA256(secret, userID)).
func UserHash(secret []byte, userID string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(userID))
	return hex.EncodeToString(mac.Sum(nil))
}

// verified says whether userHash proves userID under the website's secret:
// a website without a secret verifies nobody.
func verified(secret []byte, userID, userHash string) bool {
	if len(secret) == 0 || userID == "" || userHash == "" {
		return false
	}
	return hmac.Equal([]byte(UserHash(secret, userID)), []byte(strings.ToLower(userHash)))
}

// visitorPrefix begins every visitor id, which is also an anonymous
// visitor's identity (its contact's external_id).
const visitorPrefix = "vis_"

// CheckUserID refuses a verified user_id in the namespace of anonymous
// visitors' ids: such a user would be known as that visitor, with its
// contact and chats.
func CheckUserID(userID string) error {
	if strings.HasPrefix(userID, visitorPrefix) {
		return apierr.New(apierr.InvalidRequest, "user_id %q begins with %q, which only anonymous visitors' ids do; give your users ids without it.", userID, visitorPrefix)
	}
	return nil
}

// newToken is a visitor token and the hash it is stored under.
func newToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("visitor: token: %w", err)
	}
	token = "vt_" + base64.RawURLEncoding.EncodeToString(b)
	return token, TokenHash(token), nil
}

// TokenHash is how a visitor token is stored: only its SHA-256.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Website returns a website with its widget settings, after checking that
// the page's Origin is one of its domains and its workspace is active.
func (svc *Service) Website(ctx context.Context, websiteID, origin string) (*repo.WebsiteWidget, error) {
	if websiteID == "" {
		return nil, apierr.New(apierr.InvalidRequest, "website_id is required.")
	}
	w, err := svc.Store.WebsiteWidget(ctx, websiteID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, apierr.New(apierr.InvalidRequest, "website_id %s names no website.", websiteID)
	}
	if err != nil {
		return nil, err
	}
	if err := CheckOrigin(w, origin); err != nil {
		return nil, err
	}
	ws, err := svc.Store.Workspace(ctx, w.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if ws.Status != "active" {
		return nil, apierr.New(apierr.AccountInactive, "This website's chat is not available.")
	}
	return w, nil
}

// CheckOrigin refuses a page whose Origin is not one of the website's
// domains (compared as scheme://host[:port], without a trailing slash).
func CheckOrigin(w *repo.WebsiteWidget, origin string) error {
	if origin != "" {
		o := strings.TrimRight(strings.ToLower(origin), "/")
		for _, d := range w.Domains {
			if strings.TrimRight(strings.ToLower(d), "/") == o {
				return nil
			}
		}
	}
	return apierr.New(apierr.WebsiteNotAllowed, "Origin %q is not one of the domains of website %s.", origin, w.WebsiteID)
}

// Visitor finds the visitor of a token (Authorization: Visitor <token>).
func (svc *Service) Visitor(ctx context.Context, token string) (*repo.Visitor, error) {
	if token == "" {
		return nil, apierr.New(apierr.InvalidVisitorToken, "Send the visitor token as Authorization: Visitor <token>.")
	}
	v, err := svc.Store.VisitorByToken(ctx, TokenHash(token), svc.Clock.Now())
	if errors.Is(err, repo.ErrNotFound) {
		return nil, apierr.New(apierr.InvalidVisitorToken, "The visitor token is unknown; start a new session.")
	}
	return v, err
}

// VisitorAt is the visitor of a token, checked against the page's Origin
// (its website's domains) and its workspace's status.
func (svc *Service) VisitorAt(ctx context.Context, token, origin string) (*repo.Visitor, error) {
	v, err := svc.Visitor(ctx, token)
	if err != nil {
		return nil, err
	}
	if _, err := svc.Website(ctx, v.WebsiteID, origin); err != nil {
		return nil, err
	}
	return v, nil
}
