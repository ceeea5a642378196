package repo

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/lib/pq"
)

// DomainKey is an email domain's DKIM selector and sealed private key.
type DomainKey struct {
	Selector string `db:"dkim_selector"`
	Sealed   string `db:"dkim_key_sealed"`
	// ReturnPathDomain is the domain's configured return path ("" when
	// none); SetDomainKey leaves it alone.
	ReturnPathDomain string `db:"return_path_domain"`
}

// SetDomainKey stores a domain's DKIM selector and sealed key ("" removes it).
func (q Queries) SetDomainKey(ctx context.Context, workspaceID, domain string, k DomainKey) error {
	n, err := q.exec(ctx, `UPDATE email_domains SET dkim_selector = $3, dkim_key_sealed = $4
		WHERE workspace_id = $1 AND domain = lower($2)`, workspaceID, domain, k.Selector, k.Sealed)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// DomainKey returns a domain's DKIM key (an empty Sealed when it has none)
// and its configured return path.
func (q Queries) DomainKey(ctx context.Context, workspaceID, domain string) (*DomainKey, error) {
	return one[DomainKey](ctx, q, `SELECT dkim_selector, dkim_key_sealed, return_path_domain FROM email_domains
		WHERE workspace_id = $1 AND domain = lower($2)`, workspaceID, domain)
}

// MailRoute is a workspace an inbound address belongs to: an email account
// (AccountID set) or a verified domain of bounces+ addresses.
type MailRoute struct {
	WorkspaceID string `db:"workspace_id"`
	AccountID   string `db:"account_id"`
	Domain      string `db:"domain"`
}

// MailRoutes lists the email accounts whose address is address.
func (q Queries) MailRoutes(ctx context.Context, address string) ([]MailRoute, error) {
	var out []MailRoute
	return out, q.selectRows(ctx, &out, `SELECT workspace_id, id AS account_id, '' AS domain
		FROM channel_accounts WHERE channel = 'email' AND lower(address) = lower($1)
		ORDER BY workspace_id, id`, address)
}

// BounceRoutes lists the verified domains a bounce address's domain may
// belong to: a domain named in sending (itself, or the one a return-path
// template wraps), or one whose configured return path is returnPath.
func (q Queries) BounceRoutes(ctx context.Context, sending []string, returnPath string) ([]MailRoute, error) {
	var out []MailRoute
	return out, q.selectRows(ctx, &out, `SELECT workspace_id, '' AS account_id, domain FROM email_domains
		WHERE verified AND (domain = ANY($1) OR (return_path_domain <> '' AND return_path_domain = lower($2)))
		ORDER BY workspace_id, domain`, array(sending), returnPath)
}

// EmailMessageID links a Message-ID to a stored message.
type EmailMessageID struct {
	WorkspaceID    string    `db:"workspace_id"`
	Livemode       bool      `db:"livemode"`
	HeaderID       string    `db:"header_id"`
	MessageID      string    `db:"message_id"`
	ConversationID string    `db:"conversation_id"`
	CreatedAt      time.Time `db:"created_at"`
}

// InsertEmailMessageID records a stored message's Message-ID; false when the
// scope already has a message with it (the same mail twice).
func (q Queries) InsertEmailMessageID(ctx context.Context, m *EmailMessageID) (bool, error) {
	n, err := sqlxNamedExec(ctx, q, `INSERT INTO email_message_ids (workspace_id, livemode, header_id,
		message_id, conversation_id, created_at) VALUES (:workspace_id, :livemode, :header_id, :message_id,
		:conversation_id, :created_at) ON CONFLICT DO NOTHING`, m)
	return n == 1, err
}

// ThreadByHeaderIDs returns the conversation of the latest message of the
// scope named by one of the Message-IDs: an inbound mail's, or one of our
// outbound messages (ids ours, its msg_ ids).
func (q Queries) ThreadByHeaderIDs(ctx context.Context, s Scope, headerIDs, ours []string) (string, error) {
	return q.threadBy(ctx, s, headerIDs, ours, nil, "t")
}

// ThreadByReferences is ThreadByHeaderIDs for the ids a reply from sender
// (an address in lower case, whose contact is contactID) names, which may
// also be the Message-ID a relay gave our message: one whose local part
// is an id the relay answered the data with (Amazon SES replaces
// Message-ID with <{its id}@…amazonses.com>). Only a conversation sender
// takes part in counts (ErrNotFound otherwise): its contact's, or one with
// sender in From, To or Cc of one of its mails, sender being none of the
// workspace's own email addresses.
func (q Queries) ThreadByReferences(ctx context.Context, s Scope, headerIDs, ours []string, sender, contactID string) (string, error) {
	var locals []string
	for _, id := range headerIDs {
		if local, _, ok := strings.Cut(id, "@"); ok && local != "" {
			locals = append(locals, local)
		}
	}
	return q.threadBy(ctx, s, headerIDs, ours, locals, `t JOIN conversations c ON c.id = t.conversation_id
		WHERE c.contact_id = $6 OR (
			NOT EXISTS (SELECT 1 FROM channel_accounts a WHERE a.workspace_id = $1 AND a.channel = 'email'
				AND lower(a.address) = $7)
			AND EXISTS (SELECT 1 FROM messages pm WHERE pm.workspace_id = $1 AND pm.conversation_id = t.conversation_id
				AND pm.channel = 'email' AND ($7 = lower(pm.email->>'from') OR $7 IN (SELECT lower(a) FROM
					jsonb_array_elements_text(COALESCE(pm.email->'to', '[]') || COALESCE(pm.email->'cc', '[]')) a))))`,
		contactID, sender)
}

// threadBy is the latest conversation of the ids, among those where
// (over t, its candidates) holds.
func (q Queries) threadBy(ctx context.Context, s Scope, headerIDs, ours, relayIDs []string, where string, args ...any) (string, error) {
	var conv string
	err := q.get(ctx, &conv, `SELECT t.conversation_id FROM (
		SELECT conversation_id, created_at FROM email_message_ids
		WHERE workspace_id = $1 AND livemode = $2 AND header_id = ANY($3)
		UNION ALL
		SELECT conversation_id, created_at FROM messages
		WHERE workspace_id = $1 AND livemode = $2 AND channel = 'email' AND id = ANY($4)
		UNION ALL
		SELECT m.conversation_id, m.created_at FROM provider_messages p JOIN messages m ON m.id = p.message_id
		WHERE p.channel = 'email' AND p.provider_id = ANY($5) AND m.workspace_id = $1 AND m.livemode = $2
	) `+where+` ORDER BY t.created_at DESC LIMIT 1`,
		append([]any{s.WorkspaceID, s.Livemode, pq.StringArray(headerIDs), array(ours), array(relayIDs)}, args...)...)
	return conv, err
}

// ThreadHead is the latest inbound mail of a conversation: its Message-ID
// and its stored email headers (for In-Reply-To and References).
type ThreadHead struct {
	HeaderID string `db:"header_id"`
	Email    JSONB  `db:"email"`
}

// ThreadHead returns the conversation's latest inbound Message-ID.
func (q Queries) ThreadHead(ctx context.Context, s Scope, conversationID string) (*ThreadHead, error) {
	return one[ThreadHead](ctx, q, `SELECT e.header_id, m.email FROM email_message_ids e
		JOIN messages m ON m.id = e.message_id
		WHERE e.workspace_id = $1 AND e.livemode = $2 AND e.conversation_id = $3
		ORDER BY e.created_at DESC, e.header_id DESC LIMIT 1`, s.WorkspaceID, s.Livemode, conversationID)
}

// InboundMail is a mail as the SMTP listener accepted it.
type InboundMail struct {
	ID          string         `db:"id"`
	MailFrom    string         `db:"mail_from"`
	Recipients  pq.StringArray `db:"recipients"`
	Raw         []byte         `db:"raw"`
	ReceivedAt  time.Time      `db:"received_at"`
	ProcessedAt *time.Time     `db:"processed_at"`
	Attempts    int            `db:"attempts"`
	LastError   *string        `db:"last_error"`
	// RetryFrom is when an operator put the mail back after it was given
	// up: its retries back off from then (nil: from ReceivedAt).
	RetryFrom *time.Time `db:"retry_from"`
}

// InsertInboundMail stores an accepted mail (before the SMTP 250).
func (q Queries) InsertInboundMail(ctx context.Context, m *InboundMail) error {
	_, err := sqlxNamedExec(ctx, q, `INSERT INTO inbound_mails (id, mail_from, recipients, raw, received_at)
		VALUES (:id, :mail_from, :recipients, :raw, :received_at)`, m)
	return err
}

// LockInboundMail reads an unprocessed mail and locks it for its job
// (ErrNotFound when it is done or another worker has it).
func (q Queries) LockInboundMail(ctx context.Context, id string) (*InboundMail, error) {
	return one[InboundMail](ctx, q, `SELECT id, mail_from, recipients, raw, received_at, processed_at,
		attempts, last_error, retry_from FROM inbound_mails WHERE id = $1 AND processed_at IS NULL
		FOR UPDATE SKIP LOCKED`, id)
}

// UnprocessedInboundMail reads an unprocessed mail without locking it,
// to read it outside any transaction (ErrNotFound when it is done).
func (q Queries) UnprocessedInboundMail(ctx context.Context, id string) (*InboundMail, error) {
	return one[InboundMail](ctx, q, `SELECT id, mail_from, recipients, raw, received_at, processed_at,
		attempts, last_error, retry_from FROM inbound_mails WHERE id = $1 AND processed_at IS NULL`, id)
}

// LockInboundMailState is LockInboundMail without the raw mail.
func (q Queries) LockInboundMailState(ctx context.Context, id string) (*InboundMail, error) {
	return one[InboundMail](ctx, q, `SELECT id, mail_from, recipients, received_at, processed_at,
		attempts, last_error, retry_from FROM inbound_mails WHERE id = $1 AND processed_at IS NULL
		FOR UPDATE SKIP LOCKED`, id)
}

// FinishInboundMail marks a mail processed; lastError notes what could not
// be taken from it.
func (q Queries) FinishInboundMail(ctx context.Context, id string, at time.Time, lastError *string) error {
	_, err := q.exec(ctx, `UPDATE inbound_mails SET processed_at = $2, attempts = attempts + 1,
		last_error = $3 WHERE id = $1`, id, at, lastError)
	return err
}

// FailInboundMail counts a failed attempt at an unprocessed mail, with its
// error, and returns how many attempts failed so far (0 when the mail was
// processed meanwhile).
func (q Queries) FailInboundMail(ctx context.Context, id, lastError string) (int, error) {
	var n int
	err := q.get(ctx, &n, `UPDATE inbound_mails SET attempts = attempts + 1, last_error = $2
		WHERE id = $1 AND processed_at IS NULL RETURNING attempts`, id, lastError)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// GiveUpInboundMail counts a failed attempt at an unprocessed mail that no
// further attempt can mend: its attempts become at least maxAttempts, so it
// is tried no more. It returns the attempts (0 when the mail was processed
// meanwhile).
func (q Queries) GiveUpInboundMail(ctx context.Context, id, lastError string, maxAttempts int) (int, error) {
	var n int
	err := q.get(ctx, &n, `UPDATE inbound_mails SET attempts = greatest(attempts + 1, $3), last_error = $2
		WHERE id = $1 AND processed_at IS NULL RETURNING attempts`, id, lastError, maxAttempts)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// PendingInboundMails lists the unprocessed mails to try at now, oldest
// first: those never tried that were received before a time, and those
// that failed fewer than maxAttempts times whose next try is due, retry
// times 2^attempts after they were received (or put back: RetryFrom).
func (q Queries) PendingInboundMails(ctx context.Context, before, now time.Time, retry time.Duration, maxAttempts, limit int) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `SELECT id FROM inbound_mails WHERE processed_at IS NULL
		AND received_at < $1 AND attempts < $4
		AND (attempts = 0 OR coalesce(retry_from, received_at) + make_interval(secs => $3 * power(2, attempts)) <= $2)
		ORDER BY received_at LIMIT $5`, before, now, retry.Seconds(), maxAttempts, limit)
}

// FileContent returns the bytes of one of the scope's files.
func (q Queries) FileContent(ctx context.Context, s Scope, id string) ([]byte, error) {
	var b []byte
	return b, q.get(ctx, &b, `SELECT content FROM files WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
}

// SuppressEmail sets a contact's email_suppressed.
func (q Queries) SuppressEmail(ctx context.Context, s Scope, contactID string, mark JSONB, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE contacts SET email_suppressed = $4, updated_at = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, s.WorkspaceID, s.Livemode, contactID, mark, at)
	return err
}
