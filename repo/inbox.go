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

// viewConds are the conditions of each view on the columns of
// conversation_activity (alias a), or of conversations for Waiting (alias
// c, see InboxConversations); every one but Closed and All lists open
// conversations only, and each has an index (migrations 0042 and 0054).
var viewConds = map[string]string{
	ViewWaiting:  "c.status = 'open' AND c.mode = 'queued_for_human' AND c.assigned_agent_id IS NULL",
	ViewMine:     "a.status = 'open' AND a.assigned_agent_id = ?",
	ViewAI:       "a.status = 'open' AND a.mode = 'ai'",
	ViewExternal: "a.status = 'open' AND a.mode = 'external'",
	ViewClosed:   "a.status = 'closed'",
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
// up to Limit+1 rows. Waiting reads conversations through their
// queued_at; the other views read conversation_activity through its
// indexes, newest activity first, and join each row's conversation.
func (q Queries) InboxConversations(ctx context.Context, s Scope, f InboxFilter, p Page) ([]InboxRow, error) {
	query, args, err := InboxStatement(s, f, p)
	if err != nil {
		return nil, err
	}
	q.stmts = nil // unprepared, as list.page: the filters make many texts
	var out []InboxRow
	return out, q.selectRows(ctx, &out, query, args...)
}

// InboxStatement is the statement InboxConversations runs, with its
// arguments.
func InboxStatement(s Scope, f InboxFilter, p Page) (string, []any, error) {
	cond, ok := viewConds[f.View]
	if !ok {
		return "", nil, fmt.Errorf("repo: no inbox view %q", f.View)
	}
	l := &list{}
	l.conds = append(l.conds, scopeWhere(s, &l.args))
	from, alias := conversationFrom, "c"
	if f.View != ViewWaiting {
		from, alias = "conversation_activity a JOIN ("+conversationFrom+") ON c.id = a.id", "a"
		l.add("a.workspace_id = ? AND a.livemode = ?", s.WorkspaceID, s.Livemode)
	}
	if f.View == ViewMine {
		l.add(cond, f.MemberID)
	} else {
		l.add(cond)
	}
	if f.Channel != nil {
		// On the row the view's index walk reads (conversation_activity
		// holds the channel too), before its conversation is joined.
		l.add(alias+".channel = ?", *f.Channel)
	}
	if f.Tag != nil {
		l.add("c.tags @> ARRAY[?]::text[]", *f.Tag)
	}
	if f.AssigneeID != nil {
		l.add(alias+".assigned_agent_id = ?", *f.AssigneeID)
	}
	order := "a.last_message_at DESC, a.id DESC"
	if f.View == ViewWaiting {
		order = "c.queued_at, c.id"
		if p.After != nil {
			l.add("(c.queued_at, c.id) > (?, ?)", p.After.At, p.After.ID)
		}
	} else if p.After != nil {
		l.add("(a.last_message_at, a.id) < (?, ?)", p.After.At, p.After.ID)
	}
	l.args = append(l.args, p.Limit+1)
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT $%d",
		inboxRowColumns, from, strings.Join(l.conds, " AND "), order, len(l.args)), l.args, nil
}

// InboxUnread counts a member's unread conversations per view, each at
// most UnreadCap.
type InboxUnread struct {
	Waiting  int `db:"waiting"`
	Mine     int `db:"mine"`
	AI       int `db:"ai"`
	External int `db:"external"`
	All      int `db:"all_open"`
}

// UnreadCap bounds each unread count: a count stops at the first
// UnreadCap unread conversations it finds (the app shows "99+"), so it
// reads about that many rows through its view's index, not every open
// conversation of a large workspace.
const UnreadCap = 100

// inboxUnreadColumns count each view's unread open conversations, from
// inboxUnreadFrom, in conversation_activity (alias c: its id is the
// conversation's).
var inboxUnreadColumns = func() string {
	// status <> 'closed', not status = 'open': conversation_activity_unread's
	// predicate (see migrations 0042 and 0054).
	open := "c.status <> 'closed' AND c.last_inbound_at IS NOT NULL"
	views := []struct{ name, cond string }{
		{"waiting", open + " AND c.assigned_agent_id IS NULL AND c.mode = 'queued_for_human'"},
		{"mine", open + " AND c.assigned_agent_id = me.member_id"},
		{"ai", open + " AND c.mode = 'ai'"},
		{"external", open + " AND c.mode = 'external'"},
		{"all_open", open},
	}
	cols := make([]string, len(views))
	for i, v := range views {
		cols[i] = fmt.Sprintf(`(SELECT count(*) FROM (SELECT 1 FROM conversation_activity c WHERE c.workspace_id = me.workspace_id
		AND c.livemode = me.livemode AND %s AND %s LIMIT me.cap) AS u) AS %s`, v.cond, unreadWhere, v.name)
	}
	return strings.Join(cols, ",\n\t")
}()

// inboxUnreadFrom is the member (me) and the scope counted.
const inboxUnreadFrom = `(SELECT $1::text AS member_id, $2::text AS workspace_id, $3::boolean AS livemode, $4::int AS cap) me`

// unreadWhere is "the customer wrote since the member last read it".
const unreadWhere = `c.last_inbound_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM conversation_reads r
	WHERE r.member_id = me.member_id AND r.conversation_id = c.id AND r.read_inbound_at >= c.last_inbound_at)`

// InboxUnread counts a member's unread open conversations per view (closed
// ones are never counted unread), each up to UnreadCap, through the views'
// indexes. Members work without key restrictions, so s's workspace and
// mode are all it narrows by.
func (q Queries) InboxUnread(ctx context.Context, s Scope, memberID string) (*InboxUnread, error) {
	return one[InboxUnread](ctx, q, `SELECT `+inboxUnreadColumns+` FROM `+inboxUnreadFrom,
		memberID, s.WorkspaceID, s.Livemode, UnreadCap)
}

// UnreadAmong returns which of some conversations are unread for a member.
func (q Queries) UnreadAmong(ctx context.Context, memberID string, ids []string) (map[string]bool, error) {
	var rows []string
	if err := q.selectRows(ctx, &rows, `SELECT c.id FROM conversations c, (SELECT $1::text AS member_id) me
		WHERE c.id = ANY($2) AND `+unreadWhere, memberID, array(ids)); err != nil {
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
