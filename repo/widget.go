package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// WebsiteWidget is a website with the settings of its chat widget.
type WebsiteWidget struct {
	WebsiteID   string         `db:"website_id"`
	WorkspaceID string         `db:"workspace_id"`
	Domains     pq.StringArray `db:"domains"`
	Color       string         `db:"color"`
	Greeting    string         `db:"greeting"`
	// IdentitySecretSealed is the sealed identity secret, nil without one.
	IdentitySecretSealed *string `db:"identity_secret_sealed"`
}

// Visitor is one browser on one website: its token's hash and its contact
// ("" until its first message; Name and Email are kept for that contact).
type Visitor struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	WebsiteID   string    `db:"website_id"`
	TokenHash   string    `db:"token_hash"`
	ContactID   string    `db:"contact_id"`
	UserID      *string   `db:"user_id"`
	Name        string    `db:"name"`
	Email       *string   `db:"email"`
	CreatedAt   time.Time `db:"created_at"`
	LastSeenAt  time.Time `db:"last_seen_at"`
}

// Rating is a visitor's score of a closed website chat.
type Rating struct {
	ConversationID string    `db:"conversation_id"`
	WorkspaceID    string    `db:"workspace_id"`
	VisitorID      string    `db:"visitor_id"`
	Score          int       `db:"score"`
	Comment        string    `db:"comment"`
	CreatedAt      time.Time `db:"created_at"`
}

// UpsertWebsiteWidget stores the widget settings of a website.
func (q Queries) UpsertWebsiteWidget(ctx context.Context, w *WebsiteWidget) error {
	_, err := q.exec(ctx, `INSERT INTO website_widgets (website_id, workspace_id, color, greeting,
		identity_secret_sealed) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (website_id) DO UPDATE SET color = EXCLUDED.color, greeting = EXCLUDED.greeting,
		identity_secret_sealed = EXCLUDED.identity_secret_sealed`,
		w.WebsiteID, w.WorkspaceID, w.Color, w.Greeting, w.IdentitySecretSealed)
	return err
}

// WebsiteWidget returns a website with its widget settings (empty when it
// has none).
func (q Queries) WebsiteWidget(ctx context.Context, websiteID string) (*WebsiteWidget, error) {
	return one[WebsiteWidget](ctx, q, `SELECT w.id AS website_id, w.workspace_id, w.domains,
		coalesce(ww.color, '') AS color, coalesce(ww.greeting, '') AS greeting, ww.identity_secret_sealed
		FROM websites w LEFT JOIN website_widgets ww ON ww.website_id = w.id WHERE w.id = $1`, websiteID)
}

// OriginAllowed says whether origin is a domain of some website.
func (q Queries) OriginAllowed(ctx context.Context, origin string) (bool, error) {
	var ok bool
	return ok, q.get(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM websites WHERE $1 = ANY(domains))`, origin)
}

const visitorColumns = `id, workspace_id, website_id, token_hash, coalesce(contact_id, '') AS contact_id,
	user_id, name, email, created_at, last_seen_at`

// InsertVisitor stores a new visitor (without a contact when ContactID is "").
func (q Queries) InsertVisitor(ctx context.Context, v *Visitor) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO widget_visitors (id, workspace_id, website_id, token_hash,
		contact_id, user_id, name, email, created_at, last_seen_at) VALUES (:id, :workspace_id, :website_id,
		:token_hash, nullif(:contact_id, ''), :user_id, :name, :email, :created_at, :last_seen_at)`, v)
	return err
}

// VisitorByToken finds a visitor by the hash of its token and marks it seen.
func (q Queries) VisitorByToken(ctx context.Context, tokenHash string, now time.Time) (*Visitor, error) {
	return one[Visitor](ctx, q, `UPDATE widget_visitors SET last_seen_at = $2 WHERE token_hash = $1
		RETURNING `+visitorColumns, tokenHash, now)
}

// LockVisitor reads a visitor, locked until the transaction ends.
func (q Queries) LockVisitor(ctx context.Context, id string) (*Visitor, error) {
	return one[Visitor](ctx, q, `SELECT `+visitorColumns+` FROM widget_visitors WHERE id = $1 FOR UPDATE`, id)
}

// SetVisitorContact gives a visitor its contact.
func (q Queries) SetVisitorContact(ctx context.Context, visitorID, contactID string) error {
	_, err := q.exec(ctx, `UPDATE widget_visitors SET contact_id = $2 WHERE id = $1`, visitorID, contactID)
	return err
}

// VisitorContact is the contact a visitor is known as.
type VisitorContact struct {
	VisitorID string `db:"id"`
	ContactID string `db:"contact_id"`
}

const visitorContactColumns = `v.id, CASE WHEN v.contact_id IS NULL THEN c.id ELSE v.contact_id END AS contact_id`

const visitorContactFrom = `widget_visitors v LEFT JOIN contacts c ON c.workspace_id = v.workspace_id AND c.livemode
	AND c.external_id = coalesce(v.user_id, v.id)`

// VisitorContacts returns the contacts of those visitors that have one: its
// own, or the live contact of its identity (a verified user's user_id, an
// anonymous visitor's id) made since by another of its browsers.
func (q Queries) VisitorContacts(ctx context.Context, visitorIDs []string) ([]VisitorContact, error) {
	var out []VisitorContact
	return out, q.selectRows(ctx, &out, `SELECT `+visitorContactColumns+` FROM `+visitorContactFrom+`
		WHERE v.id = ANY($1) AND (v.contact_id IS NOT NULL OR c.id IS NOT NULL)`, array(visitorIDs))
}

// InsertRating stores a rating; a second one for the conversation is a
// *ConflictError.
func (q Queries) InsertRating(ctx context.Context, r *Rating) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO conversation_ratings (conversation_id, workspace_id,
		visitor_id, score, comment, created_at) VALUES (:conversation_id, :workspace_id, :visitor_id,
		:score, :comment, :created_at)`, r)
	return err
}

// Rated says whether a conversation has its rating.
func (q Queries) Rated(ctx context.Context, conversationID string) (bool, error) {
	var ok bool
	return ok, q.get(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM conversation_ratings WHERE conversation_id = $1)`, conversationID)
}

const widgetMessageColumns = `id, workspace_id, livemode, conversation_id, channel, direction,
	sender_type, sender_name, type, text, html, html_raw, email, attachments, status, delivery, created_at`

// PendingMessage is an outbound website message with the contact and
// website of its chat.
type PendingMessage struct {
	Message
	ContactID string `db:"contact_id"`
	WebsiteID string `db:"website_id"`
}

// UndeliveredWebsiteMessages lists the outbound live website messages to
// the contacts that no widget has received yet (status sent), oldest first.
func (q Queries) UndeliveredWebsiteMessages(ctx context.Context, contactIDs []string) ([]PendingMessage, error) {
	var out []PendingMessage
	return out, q.selectRows(ctx, &out, `SELECT c.contact_id, c.website_id, m.id, m.workspace_id, m.livemode, m.conversation_id,
		m.channel, m.direction, m.sender_type, m.sender_name, m.type, m.text, m.html, m.html_raw,
		m.email, m.attachments, m.status, m.delivery, m.created_at
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE c.contact_id = ANY($1) AND c.channel = 'website' AND c.livemode
		AND m.channel = 'website' AND m.direction = 'outbound' AND m.status = 'sent' AND m.livemode
		ORDER BY m.created_at, m.id`, array(contactIDs))
}

// ChatState is the latest website chat of a contact on a website.
type ChatState struct {
	ConversationID string `db:"id"`
	ContactID      string `db:"contact_id"`
	WebsiteID      string `db:"website_id"`
	Status         string `db:"status"`
	Rated          bool   `db:"rated"`
}

// LatestWebsiteChats returns the latest live website conversation of each
// contact and website, with whether it was rated.
func (q Queries) LatestWebsiteChats(ctx context.Context, contactIDs []string) ([]ChatState, error) {
	var out []ChatState
	return out, q.selectRows(ctx, &out, `SELECT DISTINCT ON (c.contact_id, c.website_id) c.id, c.contact_id,
		c.website_id, c.status, EXISTS (SELECT 1 FROM conversation_ratings r WHERE r.conversation_id = c.id) AS rated
		FROM conversations c WHERE c.contact_id = ANY($1) AND c.channel = 'website' AND c.livemode
		AND NOT c.is_comment ORDER BY c.contact_id, c.website_id, c.created_at DESC, c.id DESC`, array(contactIDs))
}

// WebsiteChanges lists the contacts whose widgets may have something new
// since a time: an outbound live website message still sent (no widget has
// received it) written since then, or a live website chat closed since
// then. Each once, in no order; the partial indexes of migrations 0021 and 0054 keep
// it to the rows of that time.
func (q Queries) WebsiteChanges(ctx context.Context, since time.Time) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `SELECT c.contact_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.channel = 'website' AND m.direction = 'outbound' AND m.status = 'sent' AND m.livemode
		AND m.created_at >= $1
		UNION SELECT c.contact_id FROM conversation_activity a JOIN conversations c ON c.id = a.id
		WHERE a.channel = 'website' AND a.status = 'closed' AND a.livemode AND a.updated_at >= $1`, since)
}

// LatestVisitorMessages returns the last n messages of a conversation,
// oldest first.
func (q Queries) LatestVisitorMessages(ctx context.Context, s Scope, conversationID string, n int) ([]Message, error) {
	var out []Message
	return out, q.selectRows(ctx, &out, `SELECT `+widgetMessageColumns+` FROM (SELECT `+widgetMessageColumns+`
		FROM messages WHERE workspace_id = $1 AND livemode = $2 AND conversation_id = $3
		ORDER BY created_at DESC, id DESC LIMIT $4) m ORDER BY created_at, id`,
		s.WorkspaceID, s.Livemode, conversationID, n)
}
