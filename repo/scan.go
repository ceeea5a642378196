package repo

import "context"

// Explicit scans of the rows on the hot paths (a read of a conversation, a
// send's locked conversation): each field's address in its column list's
// order, scanned by database/sql without sqlx's reflective mapping of
// column names to fields. TestScanTargetsFollowTheColumns checks every
// list against its struct.

// scanOne runs a query that answers one row into dest, after the writes
// held before it (as get does); no row is ErrNotFound.
func (q Queries) scanOne(ctx context.Context, dest []any, query string, args ...any) error {
	if err := q.beforeStatement(ctx, query, false); err != nil {
		return err
	}
	return q.scanRow(ctx, dest, query, args...)
}

// targets are a Conversation's fields in conversationColumns' order.
func (c *Conversation) targets() []any {
	return []any{&c.ID, &c.WorkspaceID, &c.Livemode, &c.Channel, &c.AccountID, &c.WebsiteID, &c.ContactID,
		&c.Status, &c.Mode, &c.Subject, &c.AssignedAgentID, &c.Tags, &c.IntegrationReplies, &c.IsComment,
		&c.MessageCount, &c.CreatedAt, &c.UpdatedAt, &c.LastMessageAt, &c.LastInboundAt,
		&c.ContactName, &c.ContactEmail, &c.ContactPhone, &c.ContactExternalID}
}

// targets are a nullAccount's fields in accountColumns' order.
func (a *nullAccount) targets() []any {
	return []any{&a.WorkspaceID, &a.ID, &a.Channel, &a.WebsiteID, &a.Name, &a.PhoneNumber, &a.Username,
		&a.Address, &a.Status, &a.MarketingMessages, &a.Processing, &a.ForwardingActive}
}

// targets are a nullContact's fields in contactColumns' order.
func (c *nullContact) targets() []any {
	return []any{&c.ID, &c.WorkspaceID, &c.Livemode, &c.Name, &c.Email, &c.Phone, &c.InstagramUserID,
		&c.ExternalID, &c.OptOutWhatsapp, &c.OptOutEmail, &c.OptOutInstagram, &c.MarketingOptOutWhatsapp,
		&c.EmailSuppressed, &c.FirstSeenChannel, &c.Source, &c.CreatedAt, &c.UpdatedAt, &c.LastSeenAt,
		&c.WhatsAppUserID}
}

// targets are a conversationForSend's fields in conversationForSendColumns'
// order.
func (r *conversationForSend) targets() []any {
	return append(append(r.Conversation.targets(), r.Account.targets()...), r.Contact.targets()...)
}
