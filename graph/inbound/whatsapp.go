package inbound

import (
	"context"
	"errors"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/repo"
)

// whatsappCustomer finds a WhatsApp customer's contact by phone (also in
// the variants of its number), then by business-scoped user id: the same
// customer may have written with a phone before and without one since (a
// username), or the other way round; a contact known by user id only gains
// the phone. userID is the user id the contact is to gain: "" when it has
// one or when another contact holds it (that contact stays as it is).
func whatsappCustomer(ctx context.Context, q repo.Queries, s repo.Scope, m Message) (ct *repo.Contact, userID string, err error) {
	column := contact.IdentityColumnOf("whatsapp", m.From)
	ct, err = q.ContactBy(ctx, s, column, m.From)
	if errors.Is(err, repo.ErrNotFound) && column == "phone" {
		ct, err = variantContact(ctx, q, s, m.From)
	}
	if m.UserID == "" || column != "phone" {
		return ct, "", err
	}
	if errors.Is(err, repo.ErrNotFound) {
		byUser, err := q.ContactBy(ctx, s, "whatsapp_user_id", m.UserID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil, m.UserID, err // a new contact with both
		}
		if err == nil && byUser.Phone == nil {
			byUser.Phone = &m.From
		}
		return byUser, "", err
	}
	if err != nil || ct.WhatsAppUserID != nil {
		return ct, "", err
	}
	switch _, other := q.ContactBy(ctx, s, "whatsapp_user_id", m.UserID); {
	case errors.Is(other, repo.ErrNotFound):
		return ct, m.UserID, nil
	case other != nil:
		return nil, "", other
	}
	return ct, "", nil
}
