package repo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Inbox views (app.md 2): which conversations each lists.
const (
	ViewWaiting  = "WAITING"
	ViewMine     = "MINE"
	ViewAI       = "AI"
	ViewExternal = "EXTERNAL"
	ViewClosed   = "CLOSED"
	ViewAll      = "ALL"
)

// InboxFilter is a view of the inbox and its filters.
type InboxFilter struct {
	View string
	// MemberID is whose Mine view it is.
	MemberID   string
	Channel    *string
	Tag        *string
	AssigneeID *string
}

// InboxRow is a conversation of an inbox page with the time it entered
// the human queue (the Waiting view's order).
type InboxRow struct {
	Conversation
	QueuedAt *time.Time `db:"queued_at"`
}

// inboxRowColumns select an inbox row.
var inboxRowColumns = conversationColumns + ", c.queued_at"

// viewConds are the conditions of each view; every one but Closed and All
// lists open conversations only, and each has an index of migration 0042.
var viewConds = map[string]string{
	ViewWaiting:  "c.status = 'open' AND c.mode = 'queued_for_human' AND c.assigned_agent_id IS NULL",
	ViewMine:     "c.status = 'open' AND c.assigned_agent_id = ?",
	ViewAI:       "c.status = 'open' AND c.mode = 'ai'",
	ViewExternal: "c.status = 'open' AND c.mode = 'external'",
	ViewClosed:   "c.status = 'closed'",
	ViewAll:      "true",
}

// ValidView says whether a view is one of the inbox's.
func ValidView(v string) bool { _, ok := viewConds[v]; return ok }

// InboxPosition is where a row sits in its view's order: the Waiting view
// orders by queued_at (oldest first), the others by last_message_at
// (newest first).
func InboxPosition(view string, r InboxRow) Position {
	if view == ViewWaiting && r.QueuedAt != nil {
		return Position{At: *r.QueuedAt, ID: r.ID}
	}
	return Position{At: r.LastMessageAt, ID: r.ID}
}

// InboxConversations lists a page of a view, keyset-paged (never OFFSET),
// up to Limit+1 rows.
func (q Queries) InboxConversations(ctx context.Context, s Scope, f InboxFilter, p Page) ([]InboxRow, error) {
	cond, ok := viewConds[f.View]
	if !ok {
		return nil, fmt.Errorf("repo: no inbox view %q", f.View)
	}
	l := &list{}
	l.conds = append(l.conds, scopeWhere(s, &l.args))
	if f.View == ViewMine {
		l.add(cond, f.MemberID)
	} else {
		l.add(cond)
	}
	if f.Channel != nil {
		l.add("c.channel = ?", *f.Channel)
	}
	if f.Tag != nil {
		l.add("c.tags @> ARRAY[?]::text[]", *f.Tag)
	}
	if f.AssigneeID != nil {
		l.add("c.assigned_agent_id = ?", *f.AssigneeID)
	}
	order := "c.last_message_at DESC, c.id DESC"
	if f.View == ViewWaiting {
		order = "c.queued_at, c.id"
		if p.After != nil {
			l.add("(c.queued_at, c.id) > (?, ?)", p.After.At, p.After.ID)
		}
	} else if p.After != nil {
		l.add("(c.last_message_at, c.id) < (?, ?)", p.After.At, p.After.ID)
	}
	l.args = append(l.args, p.Limit+1)
	query := fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT $%d",
		inboxRowColumns, conversationFrom, strings.Join(l.conds, " AND "), order, len(l.args))
	q.stmts = nil // unprepared, as list.page: the filters make many texts
	var out []InboxRow
	return out, q.selectRows(ctx, &out, query, l.args...)
}

// InboxUnread counts a member's unread conversations per view.
type InboxUnread struct {
	Waiting  int `db:"waiting"`
	Mine     int `db:"mine"`
	AI       int `db:"ai"`
	External int `db:"external"`
	All      int `db:"all_open"`
}

// inboxUnreadColumns count each view's unread conversations, from
// inboxUnreadFrom.
const inboxUnreadColumns = `count(*) FILTER (WHERE c.mode = 'queued_for_human' AND c.assigned_agent_id IS NULL) AS waiting,
	count(*) FILTER (WHERE c.assigned_agent_id = me.member_id) AS mine,
	count(*) FILTER (WHERE c.mode = 'ai') AS ai,
	count(*) FILTER (WHERE c.mode = 'external') AS external,
	count(*) AS all_open`

// inboxUnreadFrom is the open conversations with the member (me).
const inboxUnreadFrom = `conversations c CROSS JOIN (SELECT $1::text AS member_id) me`

// unreadWhere is "the customer wrote since the member last read it"; $1
// is the member.
const unreadWhere = `c.last_inbound_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM conversation_reads r
	WHERE r.member_id = $1 AND r.conversation_id = c.id AND r.read_inbound_at >= c.last_inbound_at)`

// InboxUnread counts a member's unread open conversations per view in one
// pass over the open conversations (conversations_inbox_status); closed
// conversations are never counted unread.
func (q Queries) InboxUnread(ctx context.Context, s Scope, memberID string) (*InboxUnread, error) {
	args := []any{memberID}
	return one[InboxUnread](ctx, q, `SELECT `+inboxUnreadColumns+`
		FROM `+inboxUnreadFrom+` WHERE c.status = 'open' AND `+scopeWhere(s, &args)+` AND `+unreadWhere, args...)
}

// UnreadAmong returns which of some conversations are unread for a member.
func (q Queries) UnreadAmong(ctx context.Context, memberID string, ids []string) (map[string]bool, error) {
	var rows []string
	if err := q.selectRows(ctx, &rows, `SELECT c.id FROM conversations c WHERE c.id = ANY($2) AND `+unreadWhere,
		memberID, array(ids)); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(rows))
	for _, id := range rows {
		out[id] = true
	}
	return out, nil
}

// MarkRead records that a member read a conversation visible to the scope
// up to its last customer message; it returns ErrNotFound for a
// conversation outside the scope.
func (q Queries) MarkRead(ctx context.Context, s Scope, memberID, conversationID string, at time.Time) error {
	args := []any{memberID, conversationID, at}
	n, err := q.exec(ctx, `INSERT INTO conversation_reads (member_id, conversation_id, workspace_id, read_inbound_at, read_at)
		SELECT $1, c.id, c.workspace_id, c.last_inbound_at, $3 FROM conversations c WHERE c.id = $2 AND `+scopeWhere(s, &args)+`
		ON CONFLICT (member_id, conversation_id) DO UPDATE SET read_inbound_at = EXCLUDED.read_inbound_at, read_at = EXCLUDED.read_at`,
		args...)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}
