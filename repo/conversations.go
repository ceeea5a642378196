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

	// Version is the row's xmin when an optimistic run read it
	// (LockConversationForSend), for UpdateConversation to write it only
	// at that version; "" otherwise.
	Version string `db:"-"`
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
	// The contact is read by a lateral subquery with a LIMIT, which the
	// planner cannot flatten into a join: one probe per conversation
	// whatever the statistics. As a plain join, a workspace with few
	// contacts got a hash join, and every read built a hash table of them.
	conversationFrom = `conversations c LEFT JOIN LATERAL (SELECT name, email, phone, external_id FROM contacts
		WHERE id = c.contact_id LIMIT 1) ct ON true`
	conversationSelect = `SELECT ` + conversationColumns + ` FROM ` + conversationFrom
)

// scopeWhere is the visibility of a scope over conversations (alias c): its
// workspace, its mode, and the key's channels and websites.
func scopeWhere(s Scope, args *[]any) string {
	*args = appendScope(*args, s)
	return scopeWhereAt(len(*args) - 3)
}

// appendScope appends the scope's four arguments, in scopeWhere's order.
func appendScope(args []any, s Scope) []any {
	return append(args, s.WorkspaceID, s.Livemode, array(s.Channels), array(s.WebsiteIDs))
}

// scopeWhereAt is scopeWhere's text for its four arguments from $n on,
// made once for the first positions (scopeWhereTexts): the statements
// that read a scope's conversations format none of it per call.
func scopeWhereAt(n int) string {
	if n > 0 && n < len(scopeWhereTexts) {
		return scopeWhereTexts[n]
	}
	return formatScopeWhere(n)
}

var scopeWhereTexts = func() (t [32]string) {
	for n := 1; n < len(t); n++ {
		t[n] = formatScopeWhere(n)
	}
	return t
}()

func formatScopeWhere(n int) string {
	return fmt.Sprintf(`c.workspace_id = $%d AND c.livemode = $%d
		AND (cardinality($%d::text[]) = 0 OR c.channel = ANY($%d))
		AND (cardinality($%d::text[]) = 0 OR c.website_id = ANY($%d))`, n, n+1, n+2, n+2, n+3, n+3)
}

// Conversation returns one conversation visible to the scope. It reads one
// row by its key, without the caller's cancellation (uncancellable).
func (q Queries) Conversation(ctx context.Context, s Scope, id string) (*Conversation, error) {
	query, args := ConversationStatement(s, id)
	c := new(Conversation)
	if err := q.scanOne(uncancellable(ctx), c.targets(), query, args...); err != nil {
		return nil, err
	}
	return c, nil
}

// ConversationStatement is the statement Conversation runs, with its
// arguments: what GET /v1/conversations/{id} asks of Postgres, for a
// benchmark that runs it alone (make bench-reads).
func ConversationStatement(s Scope, id string) (string, []any) {
	return conversationByID, idAndScope(id, s)
}

// idAndScope are the arguments of a read of one conversation by its id
// ($1) in a scope ($2-$5, scopeWhereAt(2)), in one allocation.
func idAndScope(id string, s Scope) []any {
	return appendScope(append(make([]any, 0, 5), id), s)
}

// conversationByID is the text of ConversationStatement, made once: the
// busiest read of the API builds no statement.
var conversationByID = conversationSelect + ` WHERE c.id = $1 AND ` + scopeWhereAt(2)

// LockConversation returns a conversation visible to the scope, locked for
// update until the transaction ends.
func (q Queries) LockConversation(ctx context.Context, s Scope, id string) (*Conversation, error) {
	return one[Conversation](ctx, q, conversationByIDLocked, idAndScope(id, s)...)
}

// conversationByIDLocked is LockConversation's text, made once.
var conversationByIDLocked = conversationByID + ` FOR UPDATE OF c`

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
		// Through conversation_activity_all (migration 0054): conversations
		// keeps no index of its activity.
		l.add(`c.id IN (SELECT a.id FROM conversation_activity a WHERE a.workspace_id = ? AND a.livemode = ?
			AND a.last_message_at >= ?)`, s.WorkspaceID, s.Livemode, *f.UpdatedSince)
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
	query, args := LatestConversationStatement(s, contactID, channel, accountID, comment)
	c := new(Conversation)
	if err := q.scanOne(ctx, c.targets(), query, args...); err != nil {
		return nil, err
	}
	return c, nil
}

// LatestConversationStatement is the statement LatestConversation runs,
// with its arguments. The conversation is found by the contact alone, in
// the index conversations_latest (migration 0053), whose columns are all
// the inner query names, so that it is one probe of that index whatever the
// planner's statistics, even none; the workspace and mode are checked on
// the row found (a contact's conversations are all in its workspace), and
// the key's channels and websites on the candidates, so the newest
// conversation the key may see is the one found.
func LatestConversationStatement(s Scope, contactID, channel, accountID string, comment bool) (string, []any) {
	args := []any{contactID, channel, accountID, comment}
	scope := scopeWhere(s, &args)
	n := len(args)
	return conversationSelect + fmt.Sprintf(` WHERE c.id = (SELECT l.id FROM conversations l
		WHERE l.contact_id = $1 AND l.channel = $2 AND l.account_id = $3 AND l.is_comment = $4
		AND (cardinality($%d::text[]) = 0 OR l.channel = ANY($%d))
		AND (cardinality($%d::text[]) = 0 OR l.website_id = ANY($%d))
		ORDER BY l.created_at DESC, l.id DESC LIMIT 1) AND `, n-1, n-1, n, n) + scope + `
		FOR UPDATE OF c`, args
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
	args := []any{s.WorkspaceID, s.Livemode, c.ID, c.Status, c.Mode, c.Subject, c.AssignedAgentID, c.Tags,
		c.IntegrationReplies, c.MessageCount, c.UpdatedAt, c.LastMessageAt, c.LastInboundAt}
	if !q.Optimistic() {
		return q.execHeld(ctx, updateConversation, oneRow, args...)
	}
	if c.Version == "" {
		return q.giveUp() // not read at a version: only a lock keeps it
	}
	return q.holdAtVersion(ctx, updateConversation+` AND xmin = $14::text::xid`, append(args, c.Version)...)
}

const updateConversation = `UPDATE conversations SET status = $4, mode = $5, subject = $6,
		assigned_agent_id = $7, tags = $8, integration_replies = $9, message_count = $10,
		updated_at = $11, last_message_at = $12, last_inbound_at = $13
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`

// uncancellable is ctx for a read of one row by its key, which takes no
// lock and is over in well under a millisecond: it runs to its end even
// when the request is cancelled. A cancellable context costs every query
// two goroutines, database/sql's and lib/pq's, each waiting to cancel it:
// about 5 % of the CPU of GET /v1/conversations/{id}.
func uncancellable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
