package repo

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// FailedInboundMail is a stored inbound mail given up after too many failed
// attempts, as an operator sees it: its envelope, size and last error, and
// the workspaces its recipients route to; never its content.
type FailedInboundMail struct {
	ID         string         `db:"id"`
	MailFrom   string         `db:"mail_from"`
	Recipients pq.StringArray `db:"recipients"`
	Size       int            `db:"size"`
	ReceivedAt time.Time      `db:"received_at"`
	Attempts   int            `db:"attempts"`
	LastError  *string        `db:"last_error"`
	// WorkspaceIDs are the workspaces with an email account at one of the
	// recipient addresses, and that of the message a bounces+ address
	// names, sorted.
	WorkspaceIDs pq.StringArray `db:"workspace_ids"`
}

const (
	failedInboundMailColumns = `m.id, m.mail_from, m.recipients, octet_length(m.raw) AS size, m.received_at,
		m.attempts, m.last_error, w.workspace_ids`
	// mailWorkspacesJoin adds, to inbound mails m, the workspaces their
	// recipients route to (w.workspace_ids), as graph/mail routes them.
	mailWorkspacesJoin = ` CROSS JOIN LATERAL (SELECT ARRAY(
		SELECT a.workspace_id FROM channel_accounts a WHERE a.channel = 'email'
			AND lower(a.address) IN (SELECT lower(r) FROM unnest(m.recipients) r)
		UNION
		SELECT g.workspace_id FROM messages g
			WHERE g.id IN (SELECT substring(lower(r) FROM '^bounces\+([^@]+)@.') FROM unnest(m.recipients) r)
		ORDER BY 1) AS workspace_ids) w`
	failedInboundMailFrom = `inbound_mails m` + mailWorkspacesJoin
)

// FailedInboundMails lists the mails given up (unprocessed after
// maxAttempts failed attempts), newest first, at most limit.
func (q Queries) FailedInboundMails(ctx context.Context, maxAttempts, limit int) ([]FailedInboundMail, error) {
	var out []FailedInboundMail
	return out, q.selectRows(ctx, &out, `SELECT `+failedInboundMailColumns+` FROM `+failedInboundMailFrom+`
		WHERE m.processed_at IS NULL AND m.attempts >= $1
		ORDER BY m.received_at DESC, m.id DESC LIMIT $2`, maxAttempts, limit)
}

// RetryInboundMail sets a given-up mail's attempts back to 0, so the sweep
// processes it again, its retries backing off from now, and returns it so (ErrNotFound when id is no mail
// given up after maxAttempts). Its last error stays until its next attempt.
func (q Queries) RetryInboundMail(ctx context.Context, id string, maxAttempts int, now time.Time) (*FailedInboundMail, error) {
	return one[FailedInboundMail](ctx, q, `WITH m AS (UPDATE inbound_mails SET attempts = 0, retry_from = $3
		WHERE id = $1 AND processed_at IS NULL AND attempts >= $2
		RETURNING id, mail_from, recipients, raw, received_at, attempts, last_error)
		SELECT `+failedInboundMailColumns+` FROM m`+mailWorkspacesJoin, id, maxAttempts, now)
}
