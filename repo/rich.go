package repo

import "context"

// ProviderMessageIn returns the id of the scope's message a provider id
// names on a channel (a quoted or reacted-to message), or ErrNotFound.
func (q Queries) ProviderMessageIn(ctx context.Context, s Scope, channel, providerID string) (string, error) {
	var id string
	return id, q.get(ctx, &id, `SELECT m.id FROM provider_messages p JOIN messages m ON m.id = p.message_id
		WHERE p.channel = $1 AND p.provider_id = $2 AND p.workspace_id = $3 AND m.livemode = $4`,
		channel, providerID, s.WorkspaceID, s.Livemode)
}

// providerPartOn selects the part a provider id names among the messages
// of one account of a scope.
const providerPartOn = `SELECT p.channel, p.provider_id, p.message_id, p.part, p.status FROM provider_messages p
	JOIN messages m ON m.id = p.message_id JOIN conversations c ON c.id = m.conversation_id
	WHERE p.workspace_id = $3 AND p.channel = $1 AND p.provider_id = $2 AND m.livemode = $4 AND c.account_id = $5`

// ProviderMessageOn returns the part a provider id names among the
// messages of one account of the scope: a provider event routed by an
// account touches that account's messages only (ErrNotFound for any other).
func (q Queries) ProviderMessageOn(ctx context.Context, s Scope, accountID, channel, providerID string) (*ProviderMessage, error) {
	return one[ProviderMessage](ctx, q, providerPartOn, channel, providerID, s.WorkspaceID, s.Livemode, accountID)
}

// LockProviderMessageOn is ProviderMessageOn with the part locked for
// update.
func (q Queries) LockProviderMessageOn(ctx context.Context, s Scope, accountID, channel, providerID string) (*ProviderMessage, error) {
	return one[ProviderMessage](ctx, q, providerPartOn+` FOR UPDATE OF p`, channel, providerID, s.WorkspaceID, s.Livemode, accountID)
}

// SetMessageText replaces a message's text (an edit by the customer); it
// reports whether the text changed.
func (q Queries) SetMessageText(ctx context.Context, s Scope, id, text string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE messages SET text = $4 WHERE workspace_id = $1 AND livemode = $2 AND id = $3
		AND text IS DISTINCT FROM $4`, s.WorkspaceID, s.Livemode, id, text)
	return n == 1, err
}

// SetMessageAttachments rewrites a message's attachments (a refetched
// file's status).
func (q Queries) SetMessageAttachments(ctx context.Context, s Scope, id string, attachments JSONB) error {
	_, err := q.exec(ctx, `UPDATE messages SET attachments = $4 WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id, attachments)
	return err
}

// FileInScope returns one file of the scope without its bytes.
func (q Queries) FileInScope(ctx context.Context, s Scope, id string) (*File, error) {
	return one[File](ctx, q, `SELECT id, workspace_id, livemode, filename, content_type, size, ''::bytea AS content,
		message_id, created_at, provider_media_id FROM files WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
}

// SetFileContent stores the bytes of a file fetched again.
func (q Queries) SetFileContent(ctx context.Context, s Scope, id, contentType string, content []byte) error {
	_, err := q.exec(ctx, `UPDATE files SET content = $4, size = $5, content_type = $6
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, s.WorkspaceID, s.Livemode, id, content, len(content), contentType)
	return err
}

// EmailMessageByHeader returns the id of the scope's message a Message-ID
// names: an inbound mail's, or, among ours (the msg_ ids our Message-IDs
// carry), an outbound email.
func (q Queries) EmailMessageByHeader(ctx context.Context, s Scope, headerID string, ours []string) (string, error) {
	var id string
	return id, q.get(ctx, &id, `SELECT id FROM (
		SELECT message_id AS id, 0 AS pref FROM email_message_ids WHERE workspace_id = $1 AND livemode = $2 AND header_id = $3
		UNION ALL
		SELECT id, 1 FROM messages WHERE workspace_id = $1 AND livemode = $2 AND channel = 'email' AND id = ANY($4)
	) t ORDER BY pref LIMIT 1`, s.WorkspaceID, s.Livemode, headerID, array(ours))
}

// RememberWaID records the wa_id WhatsApp answered for a send to a
// contact, when it is not the number sent to.
func (q Queries) RememberWaID(ctx context.Context, s Scope, waID, contactID string) error {
	_, err := q.exec(ctx, `INSERT INTO whatsapp_wa_ids (workspace_id, livemode, wa_id, contact_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (workspace_id, livemode, wa_id) DO UPDATE SET contact_id = EXCLUDED.contact_id`,
		s.WorkspaceID, s.Livemode, waID, contactID)
	return err
}

// ContactByWaID returns the contact a remembered wa_id belongs to, or
// ErrNotFound.
func (q Queries) ContactByWaID(ctx context.Context, s Scope, waID string) (*Contact, error) {
	return one[Contact](ctx, q, `SELECT `+qualified("c", contactColumns)+` FROM whatsapp_wa_ids w
		JOIN contacts c ON c.id = w.contact_id WHERE w.workspace_id = $1 AND w.livemode = $2 AND w.wa_id = $3`,
		s.WorkspaceID, s.Livemode, waID)
}
