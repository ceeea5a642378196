package repo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// AccountProvider is a channel account's sealed provider credentials.
type AccountProvider struct {
	WorkspaceID string    `db:"workspace_id"`
	AccountID   string    `db:"account_id"`
	Channel     string    `db:"channel"`
	ProviderKey string    `db:"provider_key"`
	Sealed      string    `db:"sealed"`
	UpdatedAt   time.Time `db:"updated_at"`
	// PageID is the Facebook Page id of an Instagram account whose
	// credentials name one: like ProviderKey, one account's only.
	PageID string `db:"page_id"`
}

const accountProviderColumns = `workspace_id, account_id, channel, provider_key, sealed, updated_at, page_id`

// ProviderIDTaken refuses credentials whose provider id (or Page id) is
// another account's: an id routes to one account of one workspace. The
// owner is named for the operator (seed, the admin token); Workspace is ""
// when the database refused a concurrent connect.
type ProviderIDTaken struct {
	Channel, ID          string
	Workspace, AccountID string
}

func (e *ProviderIDTaken) Error() string {
	if e.Workspace == "" {
		return fmt.Sprintf("%s id %s is connected to another account", e.Channel, e.ID)
	}
	return fmt.Sprintf("%s id %s is connected to account %s of workspace %s", e.Channel, e.ID, e.AccountID, e.Workspace)
}

// UpsertAccountProvider stores (or replaces) an account's sealed
// credentials; a provider id or Page id of another account is a
// *ProviderIDTaken and stores nothing.
func (q Queries) UpsertAccountProvider(ctx context.Context, p *AccountProvider) error {
	var owner []AccountProvider
	if err := q.selectRows(ctx, &owner, `SELECT `+accountProviderColumns+` FROM account_providers
		WHERE channel = $1 AND (provider_key IN ($2, $3) OR (page_id <> '' AND page_id IN ($2, $3)))
		AND NOT (workspace_id = $4 AND account_id = $5) ORDER BY workspace_id, account_id LIMIT 1`,
		p.Channel, p.ProviderKey, p.PageID, p.WorkspaceID, p.AccountID); err != nil {
		return err
	}
	if len(owner) > 0 {
		id := p.ProviderKey
		if o := owner[0]; o.ProviderKey != id && o.PageID != id {
			id = p.PageID
		}
		return &ProviderIDTaken{Channel: p.Channel, ID: id, Workspace: owner[0].WorkspaceID, AccountID: owner[0].AccountID}
	}
	_, err := q.exec(ctx, `INSERT INTO account_providers (`+accountProviderColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (workspace_id, account_id) DO UPDATE
		SET channel = EXCLUDED.channel, provider_key = EXCLUDED.provider_key, sealed = EXCLUDED.sealed,
		    updated_at = EXCLUDED.updated_at, page_id = EXCLUDED.page_id`,
		p.WorkspaceID, p.AccountID, p.Channel, p.ProviderKey, p.Sealed, p.UpdatedAt, p.PageID)
	var conflict *ConflictError
	switch {
	case errors.As(err, &conflict) && conflict.Constraint == "account_providers_key_unique":
		return &ProviderIDTaken{Channel: p.Channel, ID: p.ProviderKey}
	case errors.As(err, &conflict) && conflict.Constraint == "account_providers_page_unique":
		return &ProviderIDTaken{Channel: p.Channel, ID: p.PageID}
	}
	return err
}

// AccountProvider returns an account's sealed credentials (ErrNotFound for a
// sandbox-only account).
func (q Queries) AccountProvider(ctx context.Context, workspaceID, accountID string) (*AccountProvider, error) {
	return one[AccountProvider](ctx, q, `SELECT `+accountProviderColumns+` FROM account_providers
		WHERE workspace_id = $1 AND account_id = $2`, workspaceID, accountID)
}

// AccountProvidersByKey returns the accounts a provider id belongs to (the
// WhatsApp phone_number_id routes an inbound webhook), oldest first.
func (q Queries) AccountProvidersByKey(ctx context.Context, channel, key string) ([]AccountProvider, error) {
	var out []AccountProvider
	return out, q.selectRows(ctx, &out, `SELECT `+accountProviderColumns+` FROM account_providers
		WHERE channel = $1 AND provider_key = $2 ORDER BY updated_at, workspace_id`, channel, key)
}

// AccountProviders lists every account with credentials on a channel (the
// template sync walks them).
func (q Queries) AccountProviders(ctx context.Context, channel string) ([]AccountProvider, error) {
	var out []AccountProvider
	return out, q.selectRows(ctx, &out, `SELECT `+accountProviderColumns+` FROM account_providers
		WHERE channel = $1 ORDER BY workspace_id, account_id`, channel)
}

// SetAccountStatus sets a channel account's status (connected,
// needs_reauth); it reports whether the status changed.
func (q Queries) SetAccountStatus(ctx context.Context, workspaceID, id, status string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE channel_accounts SET status = $3
		WHERE workspace_id = $1 AND id = $2 AND status <> $3`, workspaceID, id, status)
	return n == 1, err
}

// SetAccountMarketing sets a WhatsApp number's marketing_messages status.
func (q Queries) SetAccountMarketing(ctx context.Context, workspaceID, id, status string) error {
	_, err := q.exec(ctx, `UPDATE channel_accounts SET marketing_messages = $3
		WHERE workspace_id = $1 AND id = $2`, workspaceID, id, status)
	return err
}

// ProviderMessage is one provider message of one of our messages.
type ProviderMessage struct {
	Channel    string `db:"channel"`
	ProviderID string `db:"provider_id"`
	MessageID  string `db:"message_id"`
	Part       int    `db:"part"`
	Status     string `db:"status"`
}

// InsertProviderMessage records a provider id of a message; it reports false
// when the message's workspace already knows the id (a retried webhook).
func (q Queries) InsertProviderMessage(ctx context.Context, p *ProviderMessage) (bool, error) {
	n, err := q.exec(ctx, `INSERT INTO provider_messages (channel, provider_id, message_id, part, status)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, p.Channel, p.ProviderID, p.MessageID, p.Part, p.Status)
	return n == 1, err
}

// ProviderMessageOf returns the part a provider id names in a workspace
// (ErrNotFound for an id none of its messages has).
func (q Queries) ProviderMessageOf(ctx context.Context, workspaceID, channel, providerID string) (*ProviderMessage, error) {
	return one[ProviderMessage](ctx, q, `SELECT channel, provider_id, message_id, part, status
		FROM provider_messages WHERE workspace_id = $1 AND channel = $2 AND provider_id = $3`, workspaceID, channel, providerID)
}

// ProviderParts lists the parts of a message in order.
func (q Queries) ProviderParts(ctx context.Context, messageID string) ([]ProviderMessage, error) {
	var out []ProviderMessage
	return out, q.selectRows(ctx, &out, `SELECT channel, provider_id, message_id, part, status
		FROM provider_messages WHERE message_id = $1 ORDER BY part`, messageID)
}

// SetProviderStatus sets the status of a workspace's part.
func (q Queries) SetProviderStatus(ctx context.Context, workspaceID, channel, providerID, status string) error {
	_, err := q.exec(ctx, `UPDATE provider_messages SET status = $4 WHERE workspace_id = $1 AND channel = $2 AND provider_id = $3`,
		workspaceID, channel, providerID, status)
	return err
}

// ConfirmMessage moves a reserved (sending) message to its provider's
// answer; it reports false when the message is no longer sending (the sweep
// settled it first).
func (q Queries) ConfirmMessage(ctx context.Context, m *Message) (bool, error) {
	n, err := q.exec(ctx, `UPDATE messages SET status = $4, delivery = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3 AND status = 'sending'`,
		m.WorkspaceID, m.Livemode, m.ID, m.Status, m.Delivery)
	return n == 1, err
}

// SettleUnknownMessage gives a message the sweep gave up as
// provider_unknown its provider's late answer (status and delivery); it
// reports false when the message is not such a message.
func (q Queries) SettleUnknownMessage(ctx context.Context, m *Message) (bool, error) {
	n, err := q.exec(ctx, `UPDATE messages SET status = $4, delivery = $5
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3 AND status = 'failed'
		AND delivery->'error'->>'code' = 'provider_unknown'`,
		m.WorkspaceID, m.Livemode, m.ID, m.Status, m.Delivery)
	return n == 1, err
}

// WhatsAppSending says whether a live WhatsApp send on a number (by
// phone_number_id) is between reserve and confirm: a status Meta sends of
// it may arrive before its wamid is stored.
func (q Queries) WhatsAppSending(ctx context.Context, phoneNumberID string) (bool, error) {
	var sending bool
	err := q.get(ctx, &sending, `SELECT EXISTS (SELECT 1 FROM messages m
		JOIN conversations c ON c.id = m.conversation_id
		JOIN account_providers p ON p.workspace_id = m.workspace_id AND p.account_id = c.account_id
		WHERE m.status = 'sending' AND m.livemode AND m.channel = 'whatsapp'
		AND p.channel = 'whatsapp' AND p.provider_key = $1)`, phoneNumberID)
	return sending, err
}

// ReleaseMessage removes a reserved message the provider refused, with its
// inline attachments, and takes it off its conversation's count; it reports
// false when the message was no longer sending.
func (q Queries) ReleaseMessage(ctx context.Context, workspaceID string, livemode bool, id string) (bool, error) {
	var convID string
	err := q.get(ctx, &convID, `DELETE FROM messages WHERE workspace_id = $1 AND livemode = $2 AND id = $3
		AND status = 'sending' RETURNING conversation_id`, workspaceID, livemode, id)
	if err != nil {
		return false, ignoreNotFound(err)
	}
	if _, err := q.exec(ctx, `DELETE FROM files WHERE workspace_id = $1 AND message_id = $2`, workspaceID, id); err != nil {
		return false, err
	}
	_, err = q.exec(ctx, `UPDATE conversations SET message_count = greatest(message_count - 1, 0)
		WHERE id = $1`, convID)
	return err == nil, err
}

// StaleSendingMessages lists messages reserved before a time and still
// sending: the process that called the provider did not settle them.
func (q Queries) StaleSendingMessages(ctx context.Context, before time.Time, limit int) ([]MessageRef, error) {
	var out []MessageRef
	// A queued message (migration 0050) counts from its call, not its
	// reserve.
	return out, q.selectRows(ctx, &out, `SELECT workspace_id, id FROM messages
		WHERE status = 'sending' AND created_at < $1 AND NOT EXISTS (SELECT 1 FROM queued_sends qs
			WHERE qs.message_id = messages.id AND qs.called_at >= $1)
		ORDER BY created_at LIMIT $2`, before, limit)
}

// MarketingHold is the hold key of one recipient's marketing messages
// only (SetHold, HoldUntil).
func MarketingHold(recipient string) string { return "marketing:" + recipient }

// HoldUntil returns when the latest rate-limit hold on an account, on one
// recipient of it, or (for a marketing send) on that recipient's marketing
// messages ends; nil when none is in force at now.
func (q Queries) HoldUntil(ctx context.Context, workspaceID, accountID, recipient string, marketing bool, now time.Time) (*time.Time, error) {
	keys := []string{"", recipient}
	if marketing {
		keys = append(keys, MarketingHold(recipient))
	}
	var until *time.Time
	err := q.get(ctx, &until, `SELECT max(until) FROM provider_holds WHERE workspace_id = $1
		AND account_id = $2 AND recipient = ANY($3) AND until > $4`, workspaceID, accountID, array(keys), now)
	return until, err
}

// SetHold holds an account ("" recipient), one recipient, or one
// recipient's marketing messages (MarketingHold) back until a time.
func (q Queries) SetHold(ctx context.Context, workspaceID, accountID, recipient string, until time.Time) error {
	_, err := q.exec(ctx, `INSERT INTO provider_holds (workspace_id, account_id, recipient, until)
		VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, account_id, recipient)
		DO UPDATE SET until = greatest(provider_holds.until, EXCLUDED.until)`, workspaceID, accountID, recipient, until)
	return err
}

func ignoreNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// ProviderHook is a provider webhook as it arrived.
type ProviderHook struct {
	ID          string     `db:"id"`
	Source      string     `db:"source"`
	Payload     []byte     `db:"payload"`
	ReceivedAt  time.Time  `db:"received_at"`
	ProcessedAt *time.Time `db:"processed_at"`
	Attempts    int        `db:"attempts"`
	// OrderKeys are the customers the hook is about (migration 0020).
	OrderKeys pq.StringArray `db:"order_keys"`
	// SentAt is when the customer sent what the hook carries, the first
	// of its Meta timestamps: a customer's pending hooks are processed in
	// SentAt order, then in arrival order. Nil is ReceivedAt.
	SentAt *time.Time `db:"sent_at"`
}

// InsertProviderHook stores a webhook payload durably before it is answered.
func (q Queries) InsertProviderHook(ctx context.Context, h *ProviderHook) error {
	_, err := q.exec(ctx, `INSERT INTO provider_hooks (id, source, payload, received_at, order_keys, sent_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, h.ID, h.Source, h.Payload, h.ReceivedAt, array(h.OrderKeys), sentAtOf(h))
	return err
}

// ProviderHook returns one stored webhook.
func (q Queries) ProviderHook(ctx context.Context, id string) (*ProviderHook, error) {
	return one[ProviderHook](ctx, q, `SELECT `+providerHookColumns+` FROM provider_hooks WHERE id = $1`, id)
}

const providerHookColumns = `id, source, payload, received_at, processed_at, attempts, order_keys, sent_at`

// hookSentAt is a stored hook's sent_at; a hook stored without one (before
// migration 0031) counts from its arrival.
const hookSentAt = `coalesce(sent_at, received_at)`

// PendingPredecessors lists the unprocessed hooks that share a customer
// with h and come before it (sent earlier, or sent at the same time and
// received earlier), in that order: they are processed before it. The
// order is total, so no two hooks are each other's predecessors.
func (q Queries) PendingPredecessors(ctx context.Context, h *ProviderHook, limit int) ([]string, error) {
	var out []string
	if len(h.OrderKeys) == 0 {
		return nil, nil
	}
	return out, q.selectRows(ctx, &out, `SELECT id FROM provider_hooks WHERE processed_at IS NULL
		AND order_keys && $1 AND (`+hookSentAt+`, received_at, id) < ($2, $3, $4)
		ORDER BY `+hookSentAt+`, received_at, id LIMIT $5`,
		array(h.OrderKeys), sentAtOf(h), h.ReceivedAt, h.ID, limit)
}

// sentAtOf is h's SentAt, or its arrival when it has none.
func sentAtOf(h *ProviderHook) time.Time {
	if h.SentAt == nil {
		return h.ReceivedAt
	}
	return *h.SentAt
}

// PendingProviderHooks lists the ids of unprocessed webhooks received before
// a time, oldest first.
func (q Queries) PendingProviderHooks(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var out []string
	return out, q.selectRows(ctx, &out, `SELECT id FROM provider_hooks WHERE processed_at IS NULL
		AND received_at < $1 ORDER BY received_at, id LIMIT $2`, before, limit)
}

// FinishProviderHook marks a webhook processed (lastErr empty) or counts a
// failed attempt.
func (q Queries) FinishProviderHook(ctx context.Context, id string, at time.Time, lastErr string) error {
	if lastErr == "" {
		_, err := q.exec(ctx, `UPDATE provider_hooks SET processed_at = $2, attempts = attempts + 1, last_error = NULL
			WHERE id = $1`, id, at)
		return err
	}
	_, err := q.exec(ctx, `UPDATE provider_hooks SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, id, lastErr)
	return err
}

// GiveUpProviderHook marks a webhook that failed too often processed, with
// its last error: it is processed no more and holds up no later hook.
func (q Queries) GiveUpProviderHook(ctx context.Context, id string, at time.Time, lastErr string) error {
	_, err := q.exec(ctx, `UPDATE provider_hooks SET processed_at = $2, attempts = attempts + 1, last_error = $3
		WHERE id = $1`, id, at, lastErr)
	return err
}

// ReplaceSyncedTemplates stores the templates a number's provider listed
// (livemode) and deletes those it no longer lists.
func (q Queries) ReplaceSyncedTemplates(ctx context.Context, workspaceID, accountID string, ts []Template) error {
	names, languages := make([]string, 0, len(ts)), make([]string, 0, len(ts))
	for i := range ts {
		t := &ts[i]
		t.WorkspaceID, t.WhatsappAccountID, t.Livemode = workspaceID, accountID, true
		if _, err := q.exec(ctx, `INSERT INTO templates (`+templateColumns+`) VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (workspace_id, livemode, whatsapp_account_id, name, language) DO UPDATE
			SET category = EXCLUDED.category, status = EXCLUDED.status, body = EXCLUDED.body,
			    components = EXCLUDED.components, parameter_format = EXCLUDED.parameter_format`,
			t.ID, workspaceID, accountID, t.Name, t.Language, t.Category, t.Status, t.Body, t.Components, t.ParameterFormat); err != nil {
			return err
		}
		names, languages = append(names, t.Name), append(languages, t.Language)
	}
	_, err := q.exec(ctx, `DELETE FROM templates WHERE workspace_id = $1 AND livemode AND whatsapp_account_id = $2
		AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS k(name, language)
		                WHERE k.name = templates.name AND k.language = templates.language)`,
		workspaceID, accountID, array(names), array(languages))
	return err
}

// SetTemplateStatus sets the status of a synced template of a number.
func (q Queries) SetTemplateStatus(ctx context.Context, workspaceID, accountID, name, language, status string) (int64, error) {
	return q.exec(ctx, `UPDATE templates SET status = $5 WHERE workspace_id = $1 AND livemode
		AND whatsapp_account_id = $2 AND name = $3 AND (language = $4 OR $4 = '')`, workspaceID, accountID, name, language, status)
}

// DeleteAccountProvider removes an account's sealed credentials; it reports
// whether there were any.
func (q Queries) DeleteAccountProvider(ctx context.Context, workspaceID, accountID string) (bool, error) {
	n, err := q.exec(ctx, `DELETE FROM account_providers WHERE workspace_id = $1 AND account_id = $2`,
		workspaceID, accountID)
	return n == 1, err
}

// ClearNeedsReauth puts a needs_reauth account back to connected (its
// credentials changed); it reports whether it was needs_reauth.
func (q Queries) ClearNeedsReauth(ctx context.Context, workspaceID, id string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE channel_accounts SET status = 'connected'
		WHERE workspace_id = $1 AND id = $2 AND status = 'needs_reauth'`, workspaceID, id)
	return n == 1, err
}
