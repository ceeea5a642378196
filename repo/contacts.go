package repo

import (
	"context"
	"fmt"
	"time"
)

// Position is where a page ends in a (created_at, id) ordered list.
type Position struct {
	At time.Time
	ID string
}

// Page asks for up to Limit rows after a position.
type Page struct {
	Limit int
	After *Position
}

// Contact is a customer record.
type Contact struct {
	ID              string  `db:"id"`
	WorkspaceID     string  `db:"workspace_id"`
	Livemode        bool    `db:"livemode"`
	Name            string  `db:"name"`
	Email           *string `db:"email"`
	Phone           *string `db:"phone"`
	InstagramUserID *string `db:"instagram_user_id"`
	ExternalID      *string `db:"external_id"`
	OptOutWhatsapp  bool    `db:"opt_out_whatsapp"`
	OptOutEmail     bool    `db:"opt_out_email"`
	OptOutInstagram bool    `db:"opt_out_instagram"`
	// MarketingOptOutWhatsapp: the customer stopped WhatsApp marketing
	// messages (user_preferences stop, 131050).
	MarketingOptOutWhatsapp bool       `db:"marketing_opt_out_whatsapp"`
	EmailSuppressed         JSONB      `db:"email_suppressed"`
	FirstSeenChannel        *string    `db:"first_seen_channel"`
	Source                  string     `db:"source"`
	CreatedAt               time.Time  `db:"created_at"`
	UpdatedAt               time.Time  `db:"updated_at"`
	LastSeenAt              *time.Time `db:"last_seen_at"`
	// WhatsAppUserID is the customer's WhatsApp business-scoped user id
	// (Meta's user_id, "US.13491208655302741918"), known with or without
	// a phone.
	WhatsAppUserID *string `db:"whatsapp_user_id"`
}

// ContactFilter narrows a contact list; Email matches case-insensitively.
type ContactFilter struct {
	Email        *string
	Phone        *string
	UpdatedSince *time.Time
}

const contactColumns = `id, workspace_id, livemode, name, email, phone, instagram_user_id, external_id,
	opt_out_whatsapp, opt_out_email, opt_out_instagram, marketing_opt_out_whatsapp, email_suppressed,
	first_seen_channel, source, created_at, updated_at, last_seen_at, whatsapp_user_id`

// Contact returns one contact in the scope.
func (q Queries) Contact(ctx context.Context, s Scope, id string) (*Contact, error) {
	return one[Contact](ctx, q, `SELECT `+contactColumns+` FROM contacts
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`, s.WorkspaceID, s.Livemode, id)
}

// ContactBy finds a contact in the scope by one identity column: email
// (case-insensitive), phone, instagram_user_id, whatsapp_user_id or
// external_id.
func (q Queries) ContactBy(ctx context.Context, s Scope, column, value string) (*Contact, error) {
	cond := map[string]string{
		"email":             "lower(email) = lower($3)",
		"phone":             "phone = $3",
		"instagram_user_id": "instagram_user_id = $3",
		"whatsapp_user_id":  "whatsapp_user_id = $3",
		"external_id":       "external_id = $3",
	}[column]
	if cond == "" {
		return nil, fmt.Errorf("contact lookup by unknown column %q", column)
	}
	return one[Contact](ctx, q, `SELECT `+contactColumns+` FROM contacts
		WHERE workspace_id = $1 AND livemode = $2 AND `+cond, s.WorkspaceID, s.Livemode, value)
}

// Contacts lists contacts newest first; it returns up to Limit+1 rows so the
// caller can tell whether more follow.
func (q Queries) Contacts(ctx context.Context, s Scope, f ContactFilter, p Page) ([]Contact, error) {
	l := &list{}
	l.add("workspace_id = ? AND livemode = ?", s.WorkspaceID, s.Livemode)
	if f.Email != nil {
		l.add("lower(email) = lower(?)", *f.Email)
	}
	if f.Phone != nil {
		l.add("phone = ?", *f.Phone)
	}
	if f.UpdatedSince != nil {
		l.add("updated_at >= ?", *f.UpdatedSince)
	}
	var out []Contact
	return out, l.page(ctx, q, &out, `SELECT `+contactColumns+` FROM contacts`, p, "")
}

// insertContact is the statement that stores a new contact.
const insertContact = `INSERT INTO contacts (` + contactColumns + `) VALUES (:id, :workspace_id,
	:livemode, :name, :email, :phone, :instagram_user_id, :external_id, :opt_out_whatsapp,
	:opt_out_email, :opt_out_instagram, :marketing_opt_out_whatsapp, :email_suppressed, :first_seen_channel, :source,
	:created_at, :updated_at, :last_seen_at, :whatsapp_user_id)`

// InsertContact stores a new contact.
func (q Queries) InsertContact(ctx context.Context, c *Contact) error {
	_, err := sqlxNamedExec(ctx, q, insertContact, c)
	return err
}

// UpdateContact writes every mutable column of a contact in the scope.
func (q Queries) UpdateContact(ctx context.Context, s Scope, c *Contact) error {
	n, err := q.exec(ctx, `UPDATE contacts SET name = $4, email = $5, phone = $6,
		instagram_user_id = $7, external_id = $8, opt_out_whatsapp = $9, opt_out_email = $10,
		opt_out_instagram = $11, updated_at = $12, last_seen_at = $13, marketing_opt_out_whatsapp = $14,
		whatsapp_user_id = $15
		WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, c.ID, c.Name, c.Email, c.Phone, c.InstagramUserID, c.ExternalID,
		c.OptOutWhatsapp, c.OptOutEmail, c.OptOutInstagram, c.UpdatedAt, c.LastSeenAt, c.MarketingOptOutWhatsapp, c.WhatsAppUserID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// DeleteContact removes a contact in the scope; its conversations stay,
// without a contact.
func (q Queries) DeleteContact(ctx context.Context, s Scope, id string) error {
	n, err := q.exec(ctx, `DELETE FROM contacts WHERE workspace_id = $1 AND livemode = $2 AND id = $3`,
		s.WorkspaceID, s.Livemode, id)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// ContactsByID returns the contacts of the scope among the ids.
func (q Queries) ContactsByID(ctx context.Context, s Scope, ids []string) ([]Contact, error) {
	var out []Contact
	return out, q.selectRows(ctx, &out, `SELECT `+contactColumns+` FROM contacts
		WHERE workspace_id = $1 AND livemode = $2 AND id = ANY($3)`, s.WorkspaceID, s.Livemode, array(ids))
}

// optOutMatch picks a contact by id or by its address on a channel.
var optOutMatch = map[string]string{
	"id":        "id = $3",
	"whatsapp":  "(phone = $3 OR whatsapp_user_id = $3)",
	"email":     "lower(email) = lower($3)",
	"instagram": "instagram_user_id = $3",
}

// optOutColumns are the opt-out flags SetOptOut may change.
var optOutColumns = map[string]bool{"opt_out_whatsapp": true, "opt_out_email": true,
	"opt_out_instagram": true, "marketing_opt_out_whatsapp": true}

// SetOptOut sets or clears one opt-out flag (column) of the scope's
// contact whose id (by "id") or address on a channel (by the channel's
// name) is who, in one conditional statement, and returns the contact as
// changed; ErrNotFound when no contact matches or the flag is already so.
func (q Queries) SetOptOut(ctx context.Context, s Scope, column, by, who string, value bool, at time.Time) (*Contact, error) {
	match, ok := optOutMatch[by]
	if !ok || !optOutColumns[column] {
		return nil, fmt.Errorf("repo: set opt-out %s by %s: no such flag or match", column, by)
	}
	return one[Contact](ctx, q, `UPDATE contacts SET `+column+` = $4, updated_at = $5
		WHERE workspace_id = $1 AND livemode = $2 AND `+match+` AND `+column+` <> $4
		RETURNING `+contactColumns, s.WorkspaceID, s.Livemode, who, value, at)
}
