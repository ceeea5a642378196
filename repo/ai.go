package repo

import (
	"context"
	"slices"
	"time"
)

// KnowledgeEntry is a question and its answer the AI may give.
type KnowledgeEntry struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	Question    string    `db:"question"`
	Answer      string    `db:"answer"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
}

const knowledgeColumns = `id, workspace_id, question, answer, created_at, updated_at`

// Knowledge lists a workspace's knowledge entries, oldest first.
func (q Queries) Knowledge(ctx context.Context, workspaceID string) ([]KnowledgeEntry, error) {
	var out []KnowledgeEntry
	err := q.selectRows(ctx, &out, `SELECT `+knowledgeColumns+` FROM knowledge_entries
		WHERE workspace_id = $1 ORDER BY seq`, workspaceID)
	return out, err
}

// KnowledgeEntry returns one entry of the workspace.
func (q Queries) KnowledgeEntry(ctx context.Context, workspaceID, id string) (*KnowledgeEntry, error) {
	return one[KnowledgeEntry](ctx, q, `SELECT `+knowledgeColumns+` FROM knowledge_entries
		WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
}

// UpsertKnowledgeEntry stores an entry, replacing one with its id in the
// same workspace; an id of another workspace is a ConflictError.
func (q Queries) UpsertKnowledgeEntry(ctx context.Context, e *KnowledgeEntry) error {
	n, err := q.exec(ctx, `INSERT INTO knowledge_entries (`+knowledgeColumns+`) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET question = EXCLUDED.question, answer = EXCLUDED.answer,
		updated_at = EXCLUDED.updated_at WHERE knowledge_entries.workspace_id = EXCLUDED.workspace_id`,
		e.ID, e.WorkspaceID, e.Question, e.Answer, e.CreatedAt, e.UpdatedAt)
	if err == nil && n == 0 {
		return &ConflictError{Constraint: "knowledge_entries_pkey"}
	}
	return err
}

// DeleteKnowledgeEntry deletes an entry of the workspace.
func (q Queries) DeleteKnowledgeEntry(ctx context.Context, workspaceID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM knowledge_entries WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// AIInstructions returns the workspace's instructions for the LLM ("" when
// none are set).
func (q Queries) AIInstructions(ctx context.Context, workspaceID string) (string, error) {
	var out []string
	err := q.selectRows(ctx, &out, `SELECT instructions FROM ai_settings WHERE workspace_id = $1`, workspaceID)
	if err != nil || len(out) == 0 {
		return "", err
	}
	return out[0], nil
}

// SetAIInstructions stores the workspace's instructions for the LLM.
func (q Queries) SetAIInstructions(ctx context.Context, workspaceID, instructions string) error {
	_, err := q.exec(ctx, `INSERT INTO ai_settings (workspace_id, instructions) VALUES ($1, $2)
		ON CONFLICT (workspace_id) DO UPDATE SET instructions = EXCLUDED.instructions`, workspaceID, instructions)
	return err
}

// SetAgentMaxOpen sets how many open conversations routing gives an agent.
func (q Queries) SetAgentMaxOpen(ctx context.Context, workspaceID, id string, maxOpen int) error {
	n, err := q.exec(ctx, `UPDATE agents SET max_open = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, id, maxOpen)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetAgentActive switches a member on or off; off ends her sessions at
// once.
func (q Queries) SetAgentActive(ctx context.Context, workspaceID, id string, active bool) error {
	n, err := q.exec(ctx, `UPDATE agents SET active = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, id, active)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	if err == nil && !active {
		err = q.DeleteMemberSessions(ctx, id)
	}
	return err
}

// AgentLoad is an agent with her count of open assigned conversations
// (both modes together).
type AgentLoad struct {
	Agent
	Open int `db:"open"`
}

var agentLoadColumns = qualified("a", agentColumns) + `,
	(SELECT count(*) FROM conversations c WHERE c.assigned_agent_id = a.id AND c.status = 'open') AS open`

// AgentLoads lists the workspace's members of role agent with their open
// conversations, in id order.
func (q Queries) AgentLoads(ctx context.Context, workspaceID string) ([]AgentLoad, error) {
	var out []AgentLoad
	err := q.selectRows(ctx, &out, `SELECT `+agentLoadColumns+`
		FROM agents a WHERE a.workspace_id = $1 AND a.role = 'agent' ORDER BY a.id`, workspaceID)
	return out, err
}

// LockRouting serialises routing of one workspace until the transaction
// ends: counts read after it see every assignment routing made before.
func (q Queries) LockRouting(ctx context.Context, workspaceID string) error {
	_, err := q.exec(ctx, `SELECT pg_advisory_xact_lock(727011, hashtext($1))`, workspaceID)
	return err
}

// WaitingConversations lists the ids of open conversations queued for a
// human and assigned to nobody, longest waiting first, of both modes.
func (q Queries) WaitingConversations(ctx context.Context, workspaceID string, limit int) ([]Scoped, error) {
	var out []Scoped
	err := q.selectRows(ctx, &out, `SELECT `+scopedColumns+` FROM conversations
		WHERE workspace_id = $1 AND status = 'open' AND mode = 'queued_for_human' AND assigned_agent_id IS NULL
		ORDER BY queued_at NULLS FIRST, id LIMIT $2`, workspaceID, limit)
	return out, err
}

// WorkspacesWaiting lists workspaces with a conversation waiting for a human.
func (q Queries) WorkspacesWaiting(ctx context.Context) ([]string, error) {
	var out []string
	err := q.selectRows(ctx, &out, `SELECT DISTINCT workspace_id FROM conversations
		WHERE status = 'open' AND mode = 'queued_for_human' AND assigned_agent_id IS NULL`)
	return out, err
}

// Scoped names a row of customer data with its workspace and mode.
type Scoped struct {
	ID          string `db:"id"`
	WorkspaceID string `db:"workspace_id"`
	Livemode    bool   `db:"livemode"`
}

const scopedColumns = `id, workspace_id, livemode`

// AIWork is an inbound message the AI owes an answer.
type AIWork struct {
	Seq            int64      `db:"seq"`
	MessageID      string     `db:"message_id"`
	WorkspaceID    string     `db:"workspace_id"`
	Livemode       bool       `db:"livemode"`
	ConversationID string     `db:"conversation_id"`
	CreatedAt      time.Time  `db:"created_at"`
	DoneAt         *time.Time `db:"done_at"`
	Outcome        *string    `db:"outcome"`
}

const aiWorkColumns = `seq, message_id, workspace_id, livemode, conversation_id, created_at, done_at, outcome`

// InsertAIWork records that a message waits for the AI.
func (q Queries) InsertAIWork(ctx context.Context, w *AIWork) error {
	_, err := q.exec(ctx, `INSERT INTO ai_work (message_id, workspace_id, livemode, conversation_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_id) DO NOTHING`,
		w.MessageID, w.WorkspaceID, w.Livemode, w.ConversationID, w.CreatedAt)
	return err
}

// NextAIWork returns a conversation's oldest unanswered message for the AI.
func (q Queries) NextAIWork(ctx context.Context, conversationID string) (*AIWork, error) {
	return one[AIWork](ctx, q, `SELECT `+aiWorkColumns+` FROM ai_work WHERE conversation_id = $1 AND done_at IS NULL ORDER BY seq LIMIT 1`, conversationID)
}

// FinishAIWork marks a message answered (or skipped), saying how.
func (q Queries) FinishAIWork(ctx context.Context, messageID, outcome string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE ai_work SET done_at = $2, outcome = $3 WHERE message_id = $1 AND done_at IS NULL`,
		messageID, at, outcome)
	return err
}

// ConversationsWithAIWork lists conversations with unanswered messages for
// the AI, those waiting longest first.
func (q Queries) ConversationsWithAIWork(ctx context.Context, limit int) ([]string, error) {
	var out []string
	err := q.selectRows(ctx, &out, `SELECT conversation_id FROM ai_work WHERE done_at IS NULL
		GROUP BY conversation_id ORDER BY min(seq) LIMIT $1`, limit)
	return out, err
}

// RecentMessages returns a conversation's newest messages, oldest first.
func (q Queries) RecentMessages(ctx context.Context, s Scope, conversationID string, limit int) ([]Message, error) {
	var out []Message
	err := q.selectRows(ctx, &out, `SELECT id, workspace_id, livemode, conversation_id, channel,
		direction, sender_type, sender_name, type, text, html, html_raw, email, attachments, status, delivery,
		created_at FROM messages WHERE workspace_id = $1 AND livemode = $2 AND conversation_id = $3
		ORDER BY created_at DESC, id DESC LIMIT $4`, s.WorkspaceID, s.Livemode, conversationID, limit)
	slices.Reverse(out)
	return out, err
}

// SetIntegrationReplies pauses or resumes API sends on a conversation.
func (q Queries) SetIntegrationReplies(ctx context.Context, s Scope, id string, on bool, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE conversations SET integration_replies = $4, updated_at = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, s.WorkspaceID, s.Livemode, id, on, at)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// WithLock runs fn while holding a Postgres advisory lock named by key. ran
// is false, and fn not run, when another holds it.
//
// The lock is a transaction's (pg_try_advisory_xact_lock), held by a
// transaction that stays open while fn runs and is rolled back after it:
// it goes with the transaction whatever happens (fn's error, a cancelled
// context, the process dying), and a transaction pooler (PgBouncer in
// transaction mode) keeps the transaction on one server connection and
// never hands a lock left behind to another client, as it would a session
// lock. fn does its work on other connections; the one transaction is all
// the lock costs.
func (s *Store) WithLock(ctx context.Context, key string, fn func() error) (ran bool, err error) {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return false, translate(err)
	}
	defer tx.Rollback() //nolint:errcheck // the rollback is what lets go
	var ok bool
	if err := tx.GetContext(ctx, &ok, `SELECT pg_try_advisory_xact_lock(727012, hashtext($1))`, key); err != nil || !ok {
		return false, translate(err)
	}
	return true, fn()
}

// HumanQueue lists the scope's conversations waiting for a person, longest
// waiting first.
func (q Queries) HumanQueue(ctx context.Context, s Scope, limit int) ([]Conversation, error) {
	args := []any{limit}
	var out []Conversation
	err := q.selectRows(ctx, &out, conversationSelect+` WHERE `+scopeWhere(s, &args)+` AND c.status = 'open'
		AND c.mode = 'queued_for_human' AND c.assigned_agent_id IS NULL ORDER BY c.queued_at NULLS FIRST, c.id LIMIT $1`, args...)
	return out, err
}

// LastEventSeq is the newest event's position (0 with none).
func (q Queries) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := q.get(ctx, &seq, `SELECT COALESCE(max(seq), 0) FROM events`)
	return seq, err
}

// ConversationEventsAfter lists the workspace's conversation.* and message.*
// events of one mode after a position, oldest first; conversationID, when
// not empty, narrows them to one conversation.
func (q Queries) ConversationEventsAfter(ctx context.Context, workspaceID string, livemode bool, conversationID string, after int64, limit int) ([]Event, error) {
	var out []Event
	err := q.selectRows(ctx, &out, `SELECT `+eventColumns+` FROM events WHERE seq > $1 AND workspace_id = $2
		AND livemode = $3 AND ($4 = '' OR conversation_id = $4)
		AND (type LIKE 'conversation.%' OR type LIKE 'message.%') ORDER BY seq LIMIT $5`,
		after, workspaceID, livemode, conversationID, limit)
	return out, err
}
