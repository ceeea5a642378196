package repo

import (
	"context"
	"time"
)

// LockConversationForSend is LockConversation that also returns the
// conversation's channel account, as Account finds it (whatever the key's
// restrictions), and its contact, as Contact finds it in the scope, in the
// one statement: a send into a conversation needs all three. The account or
// the contact is nil when there is none (a contact deleted since, or an
// account gone); only the conversation is locked. In an optimistic run
// (InTxOptimistic) nothing is locked: the conversation's version is read
// instead.
func (q Queries) LockConversationForSend(ctx context.Context, s Scope, id string) (*Conversation, *Account, *Contact, error) {
	args := idAndScope(id, s)
	row := new(conversationForSend)
	targets, query := row.targets(), conversationForSendLocked
	if q.Optimistic() {
		// No lock: the row's version, for UpdateConversation to write at;
		// a read by key that waits for nothing (uncancellable).
		targets, query = append(targets, &row.Conversation.Version), conversationForSendAtVersion
		ctx = uncancellable(ctx)
	}
	if err := q.scanOne(ctx, targets, query, args...); err != nil {
		return nil, nil, nil, err
	}
	return &row.Conversation, row.Account.account(), row.Contact.contact(), nil
}

// conversationForSend is the row LockConversationForSend reads. The account
// and the contact are outer joined, so their columns are all NULL when
// there is none: they scan into structs of nullable fields, which sqlx
// would refuse to leave zero in an Account's or a Contact's.
type conversationForSend struct {
	Conversation
	Account nullAccount `db:"account"`
	Contact nullContact `db:"contact"`
}

var (
	conversationForSendColumns = conversationColumns + `,
	` + nested("account", qualified("acc", accountColumns)) + `,
	` + nested("contact", qualified("k", contactColumns))
	// The contact is in the conversation's workspace and mode, which are the
	// scope's; the account is the first Account would answer.
	conversationForSendFrom = conversationFrom + `
	LEFT JOIN LATERAL (SELECT ` + contactColumns + ` FROM contacts k WHERE k.id = c.contact_id
		AND k.workspace_id = c.workspace_id AND k.livemode = c.livemode LIMIT 1) k ON true
	LEFT JOIN LATERAL (` + accountsSelect("c.workspace_id", "c.channel", "'{}'::text[]", "'{}'::text[]", "c.account_id") + `
	LIMIT 1) acc ON true`

	// The texts LockConversationForSend runs, made once (a send builds no
	// statement): in a transaction, the row locked; in an optimistic run,
	// its version instead.
	conversationForSendWhere     = ` FROM ` + conversationForSendFrom + ` WHERE c.id = $1 AND ` + scopeWhereAt(2)
	conversationForSendLocked    = `SELECT ` + conversationForSendColumns + conversationForSendWhere + ` FOR UPDATE OF c`
	conversationForSendAtVersion = `SELECT ` + conversationForSendColumns + `, c.xmin::text` + conversationForSendWhere
)

// nullAccount is an Account that may be absent.
type nullAccount struct {
	WorkspaceID       *string `db:"workspace_id"`
	ID                *string `db:"id"`
	Channel           *string `db:"channel"`
	WebsiteID         *string `db:"website_id"`
	Name              *string `db:"name"`
	PhoneNumber       *string `db:"phone_number"`
	Username          *string `db:"username"`
	Address           *string `db:"address"`
	Status            *string `db:"status"`
	MarketingMessages *string `db:"marketing_messages"`
	Processing        *bool   `db:"processing"`
	ForwardingActive  *bool   `db:"forwarding_active"`
}

// account is the Account, or nil when absent. Every column of a present
// account is NOT NULL.
func (a nullAccount) account() *Account {
	if a.ID == nil {
		return nil
	}
	return &Account{WorkspaceID: *a.WorkspaceID, ID: *a.ID, Channel: *a.Channel, WebsiteID: *a.WebsiteID,
		Name: *a.Name, PhoneNumber: *a.PhoneNumber, Username: *a.Username, Address: *a.Address,
		Status: *a.Status, MarketingMessages: *a.MarketingMessages, Processing: *a.Processing,
		ForwardingActive: *a.ForwardingActive}
}

// nullContact is a Contact that may be absent; the columns that are
// nullable in a Contact keep their types.
type nullContact struct {
	ID                      *string    `db:"id"`
	WorkspaceID             *string    `db:"workspace_id"`
	Livemode                *bool      `db:"livemode"`
	Name                    *string    `db:"name"`
	Email                   *string    `db:"email"`
	Phone                   *string    `db:"phone"`
	InstagramUserID         *string    `db:"instagram_user_id"`
	ExternalID              *string    `db:"external_id"`
	OptOutWhatsapp          *bool      `db:"opt_out_whatsapp"`
	OptOutEmail             *bool      `db:"opt_out_email"`
	OptOutInstagram         *bool      `db:"opt_out_instagram"`
	MarketingOptOutWhatsapp *bool      `db:"marketing_opt_out_whatsapp"`
	EmailSuppressed         JSONB      `db:"email_suppressed"`
	FirstSeenChannel        *string    `db:"first_seen_channel"`
	Source                  *string    `db:"source"`
	CreatedAt               *time.Time `db:"created_at"`
	UpdatedAt               *time.Time `db:"updated_at"`
	LastSeenAt              *time.Time `db:"last_seen_at"`
	WhatsAppUserID          *string    `db:"whatsapp_user_id"`
}

// contact is the Contact, or nil when absent.
func (c nullContact) contact() *Contact {
	if c.ID == nil {
		return nil
	}
	return &Contact{ID: *c.ID, WorkspaceID: *c.WorkspaceID, Livemode: *c.Livemode, Name: *c.Name,
		Email: c.Email, Phone: c.Phone, InstagramUserID: c.InstagramUserID, ExternalID: c.ExternalID,
		OptOutWhatsapp: *c.OptOutWhatsapp, OptOutEmail: *c.OptOutEmail, OptOutInstagram: *c.OptOutInstagram,
		MarketingOptOutWhatsapp: *c.MarketingOptOutWhatsapp,
		EmailSuppressed:         c.EmailSuppressed, FirstSeenChannel: c.FirstSeenChannel, Source: *c.Source,
		CreatedAt: *c.CreatedAt, UpdatedAt: *c.UpdatedAt, LastSeenAt: c.LastSeenAt, WhatsAppUserID: c.WhatsAppUserID}
}
