package metahook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// changedNumber moves a WhatsApp customer to the new number a
// user_changed_number system message names: the contact keeps its id, its
// conversations and their history, and contact.updated says phone changed.
// A new number another contact already has is left alone (logged): two
// contacts are not merged behind the business's back.
func (s *Service) changedNumber(ctx context.Context, scope repo.Scope, oldPhone, newWaID string) error {
	if newWaID == "" {
		slog.Warn("meta hook: user_changed_number without the new number")
		return nil
	}
	newPhone, err := contact.NormalizePhone("+" + newWaID)
	if err != nil {
		return fmt.Errorf("metahook: new wa_id %q: %w", newWaID, err)
	}
	moved := false
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		ct, err := q.ContactBy(ctx, scope, "phone", oldPhone)
		if errors.Is(err, repo.ErrNotFound) {
			return nil // no such customer, or moved already
		}
		if err != nil {
			return err
		}
		if _, err := q.ContactBy(ctx, scope, "phone", newPhone); err == nil {
			slog.Warn("meta hook: a customer changed number to one another contact has; contacts left as they are")
			return nil
		} else if !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		ct.Phone, ct.UpdatedAt = &newPhone, s.Clock.Now()
		if err := q.UpdateContact(ctx, scope, ct); err != nil {
			return err
		}
		moved = true
		return s.Events.Record(ctx, q, scope, event.ContactUpdated, nil,
			event.ContactUpdate{Contact: view.Contact(ct), Changed: []string{"phone"}})
	})
	if err == nil && moved {
		s.Events.Committed(ctx)
	}
	return err
}

// changedUserID gives a WhatsApp customer the new business-scoped user id
// a system message names (user_changed_user_id; user_changed_number, whose
// new number comes with a new one): the contact known by who (its phone,
// after a number change the new one, or its old user id) keeps its id and
// history, and contact.updated says whatsapp_user_id changed. A user id
// another contact has is left alone (logged).
func (s *Service) changedUserID(ctx context.Context, scope repo.Scope, who, newUserID string) error {
	changed := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		if _, err := q.ContactBy(ctx, scope, "whatsapp_user_id", newUserID); err == nil {
			return nil // already so, or another contact's: left as they are
		} else if !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		ct, err := q.ContactBy(ctx, scope, contact.IdentityColumnOf("whatsapp", who), who)
		if errors.Is(err, repo.ErrNotFound) {
			slog.Info("meta hook: a new WhatsApp user id for a customer with no contact; ignored")
			return nil
		}
		if err != nil {
			return err
		}
		ct.WhatsAppUserID, ct.UpdatedAt = &newUserID, s.Clock.Now()
		if err := q.UpdateContact(ctx, scope, ct); err != nil {
			return err
		}
		changed = true
		return s.Events.Record(ctx, q, scope, event.ContactUpdated, nil,
			event.ContactUpdate{Contact: view.Contact(ct), Changed: []string{"whatsapp_user_id"}})
	})
	if err == nil && changed {
		s.Events.Committed(ctx)
	}
	return err
}
