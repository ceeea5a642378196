package repo

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Conversation is a thread with one customer on one channel account, with the
// summary of its contact joined in.
type Conversation struct {
	ID                 string         `db:"id"`
	WorkspaceID        string         `db:"workspace_id"`
	Livemode           bool           `db:"livemode"`
	Channel            string         `db:"channel"`
	AccountID          string         `db:"account_id"`
	WebsiteID          string         `db:"website_id"`
	ContactID          *string        `db:"contact_id"`
	Status             string         `db:"status"`
	Mode               string         `db:"mode"`
	Subject            *string        `db:"subject"`
	AssignedAgentID    *string        `db:"assigned_agent_id"`
	Tags               pq.StringArray `db:"tags"`
	IntegrationReplies bool           `db:"integration_replies"`
	IsComment          bool           `db:"is_comment"`
	MessageCount       int            `db:"message_count"`
	CreatedAt          time.Time      `db:"created_at"`
	UpdatedAt          time.Time      `db:"updated_at"`
	LastMessageAt      time.Time      `db:"last_message_at"`
	LastInboundAt      *time.Time     `db:"last_inbound_at"`

	ContactName       *string `db:"contact_name"`
	ContactEmail      *string `db:"contact_email"`
	ContactPhone      *string `db:"contact_phone"`
	ContactExternalID *string `db:"contact_external_id"`
}

// ConversationFilter narrows a conversation list.
type ConversationFilter struct {
	Channel      *string
	Status       *string
	WebsiteID    *string
	UpdatedSince *time.Time
	// ContactID narrows the list to one customer's conversations (the
	// inbox's contact sidebar).
	ContactID *string
}

// conversationTableColumns are the columns of the conversations table.
const conversationTableColumns = `id, workspace_id, livemode, channel, account_id, website_id,
	contact_id, status, mode, subject, assigned_agent_id, tags, integration_replies, is_comment,
	message_count, created_at, updated_at, last_message_at, last_inbound_at`

// conversationColumns select a conversation with its contact's summary.
var (
	conversationColumns = qualified("c", conversationTableColumns) + `,
	ct.name AS contact_name, ct.email AS contact_email, ct.phone AS contact_phone,
	ct.external_id AS contact_external_id`
	conversationFrom   = `conversations c LEFT JOIN contacts ct ON ct.id = c.contact_id`
	conversationSelect = `SELECT ` + conversationColumns + ` FROM ` + conversationFrom
)

// scopeWhere is the visibility of a scope over conversations (alias c): its
// workspace, its mode, and the key's channels and websites.
func scopeWhere(s Scope, args *[]any) string {
	*args = append(*args, s.WorkspaceID, s.Livemode, array(s.Channels), array(s.WebsiteIDs))
	n := len(*args)
	return fmt.Sprintf(`c.workspace_id = $%d AND c.livemode = $%d
		AND (cardinality($%d::text[]) = 0 OR c.channel = ANY($%d))
		AND (cardinality($%d::text[]) = 0 OR c.website_id = ANY($%d))`, n-3, n-2, n-1, n-1, n, n)
}

// Conversation returns one conversation visible to the scope.
func (q Queries) Conversation(ctx context.Context, s Scope, id string) (*Conversation, error) {
	query, args := ConversationStatement(s, id)
	return one[Conversation](ctx, q, query, args...)
}

// ConversationStatement is the statement Conversation runs, with its
// arguments: what GET /v1/conversations/{id} asks of Postgres, for a
// benchmark that runs it alone (make bench-reads).
func ConversationStatement(s Scope, id string) (string, []any) {
	args := []any{id}
	return conversationSelect + ` WHERE c.id = $1 AND ` + scopeWhere(s, &args), args
}

// LockConversation returns a conversation visible to the scope, locked for
// update until the transaction ends.
func (q Queries) LockConversation(ctx context.Context, s Scope, id string) (*Conversation, error) {
	args := []any{id}
	return one[Conversation](ctx, q, conversationSelect+` WHERE c.id = $1 AND `+scopeWhere(s, &args)+` FOR UPDATE OF c`, args...)
}

// Conversations lists conversations newest first, up to Limit+1 rows.
func (q Queries) Conversations(ctx context.Context, s Scope, f ConversationFilter, p Page) ([]Conversation, error) {
	l := &list{}
	l.conds = append(l.conds, scopeWhere(s, &l.args))
	if f.Channel != nil {
		l.add("c.channel = ?", *f.Channel)
	}
	if f.Status != nil {
		l.add("c.status = ?", *f.Status)
	}
	if f.WebsiteID != nil {
		l.add("c.website_id = ?", *f.WebsiteID)
	}
	if f.UpdatedSince != nil {
		l.add("c.last_message_at >= ?", *f.UpdatedSince)
	}
	if f.ContactID != nil {
		l.add("c.contact_id = ?", *f.ContactID)
	}
	var out []Conversation
	return out, l.page(ctx, q, &out, conversationSelect, p, "c.")
}

// LatestConversation returns the newest conversation of a contact on one
// account (comment threads apart from direct ones), locked for update.
func (q Queries) LatestConversation(ctx context.Context, s Scope, contactID, channel, accountID string, comment bool) (*Conversation, error) {
	args := []any{contactID, channel, accountID, comment}
	return one[Conversation](ctx, q, conversationSelect+` WHERE c.contact_id = $1 AND c.channel = $2
		AND c.account_id = $3 AND c.is_comment = $4 AND `+scopeWhere(s, &args)+`
		ORDER BY c.created_at DESC, c.id DESC LIMIT 1 FOR UPDATE OF c`, args...)
}

// InsertConversation stores a new conversation.
func (q Queries) InsertConversation(ctx context.Context, c *Conversation) error {
	c.Tags = array(c.Tags)
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO conversations (`+conversationTableColumns+`) VALUES (:id, :workspace_id, :livemode, :channel, :account_id, :website_id,
		:contact_id, :status, :mode, :subject, :assigned_agent_id, :tags, :integration_replies,
		:is_comment, :message_count, :created_at, :updated_at, :last_message_at, :last_inbound_at)`, c)
	return err
}

// UpdateConversation writes the mutable columns of a conversation.
func (q Queries) UpdateConversation(ctx context.Context, s Scope, c *Conversation) error {
	return q.execHeld(ctx, `UPDATE conversations SET status = $4, mode = $5, subject = $6,
		assigned_agent_id = $7, tags = $8, integration_replies = $9, message_count = $10,
		updated_at = $11, last_message_at = $12, last_inbound_at = $13
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, oneRow,
		s.WorkspaceID, s.Livemode, c.ID, c.Status, c.Mode, c.Subject, c.AssignedAgentID, c.Tags,
		c.IntegrationReplies, c.MessageCount, c.UpdatedAt, c.LastMessageAt, c.LastInboundAt)
}
