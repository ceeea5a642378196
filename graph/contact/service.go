package contact

import (
	"context"
	"errors"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// List is GET /v1/contacts, newest first.
func (s *Service) List(ctx context.Context, filter *model.ContactFilter, limit *int, after *string) (*model.ContactPage, error) {
	a, err := auth.ForContacts(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.Cursors.Page("contacts", limit, after)
	if err != nil {
		return nil, err
	}
	var f repo.ContactFilter
	if filter != nil {
		f.Email = filter.Email
		if filter.Phone != nil {
			phone, err := NormalizePhone(*filter.Phone)
			if err != nil {
				return nil, err
			}
			f.Phone = &phone
		}
		if filter.UpdatedSince != nil {
			since, err := ParseSince(*filter.UpdatedSince)
			if err != nil {
				return nil, err
			}
			f.UpdatedSince = &since
		}
	}
	rows, err := s.Store.Contacts(ctx, a.Scope(), f, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, "contacts", rows, p, func(c repo.Contact) repo.Position { return repo.Position{At: c.CreatedAt, ID: c.ID} })
	return &model.ContactPage{Items: view.Map(rows, view.Contact), HasMore: more, NextCursor: next}, nil
}

// Get is GET /v1/contacts/{id}.
func (s *Service) Get(ctx context.Context, id string) (*model.Contact, error) {
	a, err := auth.ForContacts(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.Store.Contact(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.ContactNotFound, "contact", id)
	}
	return view.Contact(c), nil
}

// NormalizeIdentity validates and normalizes an optional email and phone.
func NormalizeIdentity(email, phone *string) (*string, *string, error) {
	if email != nil {
		e, err := NormalizeEmail(*email)
		if err != nil {
			return nil, nil, err
		}
		email = &e
	}
	if phone != nil {
		p, err := NormalizePhone(*phone)
		if err != nil {
			return nil, nil, err
		}
		phone = &p
	}
	return email, phone, nil
}

// Store is what the contacts API reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	identityReader
	Contact(ctx context.Context, s repo.Scope, id string) (*repo.Contact, error)
	Contacts(ctx context.Context, s repo.Scope, f repo.ContactFilter, p repo.Page) ([]repo.Contact, error)
}

type identityReader interface {
	ContactBy(ctx context.Context, s repo.Scope, column, value string) (*repo.Contact, error)
}

// Service is the contacts API.
type Service struct {
	Store   Store
	Clock   clock.Clock
	Events  event.Recorder
	Cursors cursor.Signer
}

// ensureUnique answers contact_exists when another contact of the scope has
// the email or phone; the message names it.
func ensureUnique(ctx context.Context, q identityReader, s repo.Scope, selfID string, email, phone *string) error {
	for _, f := range []struct {
		column string
		value  *string
	}{{"email", email}, {"phone", phone}} {
		column, value := f.column, f.value
		if value == nil {
			continue
		}
		other, err := q.ContactBy(ctx, s, column, *value)
		if errors.Is(err, repo.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if other.ID != selfID {
			return apierr.New(apierr.ContactExists, "Contact %s already has this %s.", other.ID, column)
		}
	}
	return nil
}

// conflictAsExists turns a unique violation that raced past ensureUnique into
// contact_exists.
func conflictAsExists(ctx context.Context, q identityReader, s repo.Scope, selfID string, email, phone *string, err error) error {
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		if again := ensureUnique(ctx, q, s, selfID, email, phone); again != nil {
			return again
		}
		return apierr.New(apierr.ContactExists, "Another contact has this email or phone.")
	}
	return err
}

// Create is POST /v1/contacts: contact_exists when the email or phone is taken.
func (s *Service) Create(ctx context.Context, in model.CreateContactInput) (*model.Contact, error) {
	a, err := auth.ForContacts(ctx)
	if err != nil {
		return nil, err
	}
	if err := CheckName(in.Name); err != nil {
		return nil, err
	}
	email, phone, err := NormalizeIdentity(in.Email, in.Phone)
	if err != nil {
		return nil, err
	}
	if email == nil && phone == nil {
		return nil, apierr.New(apierr.InvalidRequest, "A contact needs an email or a phone.")
	}
	now := s.Clock.Now()
	c := &repo.Contact{
		ID: repo.NewID("ct_", now), WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		Email: email, Phone: phone, Source: "api", CreatedAt: now, UpdatedAt: now,
	}
	if in.Name != nil {
		c.Name = *in.Name
	}
	scope := a.Scope()
	var out *model.Contact
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if err := ensureUnique(ctx, q, scope, "", email, phone); err != nil {
			return err
		}
		if err := q.InsertContact(ctx, c); err != nil {
			return err
		}
		out = view.Contact(c)
		return s.Events.Record(ctx, q, scope, event.ContactCreated, nil, out)
	})
	if err != nil {
		return nil, conflictAsExists(ctx, s.Store, scope, "", email, phone, err)
	}
	s.Events.Committed(ctx)
	return out, nil
}

// Update applies a PATCH and records contact.updated with what changed.
func (s *Service) Update(ctx context.Context, id string, in model.UpdateContactInput) (*model.ContactUpdate, error) {
	a, err := auth.ForContacts(ctx)
	if err != nil {
		return nil, err
	}
	if err := CheckName(in.Name); err != nil {
		return nil, err
	}
	email, phone, err := NormalizeIdentity(in.Email, in.Phone)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	var out *model.ContactUpdate
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.Contact(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ContactNotFound, "contact", id)
		}
		if err := ensureUnique(ctx, q, scope, id, email, phone); err != nil {
			return err
		}
		var changed []string
		set := func(name string, changes bool, apply func()) {
			if changes {
				apply()
				changed = append(changed, name)
			}
		}
		if in.Name != nil {
			set("name", *in.Name != c.Name, func() { c.Name = *in.Name })
		}
		if email != nil {
			set("email", !view.EqualPtr(email, c.Email), func() { c.Email = email })
		}
		if phone != nil {
			set("phone", !view.EqualPtr(phone, c.Phone), func() { c.Phone = phone })
		}
		optOut := func(v *bool, field *bool) {
			if v != nil {
				set("opt_outs", *v != *field, func() { *field = *v })
			}
		}
		optOut(in.WhatsappOptOut, &c.OptOutWhatsapp)
		optOut(in.EmailOptOut, &c.OptOutEmail)
		optOut(in.InstagramOptOut, &c.OptOutInstagram)
		if len(changed) > 0 {
			c.UpdatedAt = s.Clock.Now()
			if err := q.UpdateContact(ctx, scope, c); err != nil {
				return err
			}
		}
		out = &model.ContactUpdate{Contact: view.Contact(c), Changed: dedupe(changed)}
		if len(changed) == 0 {
			return nil
		}
		return s.Events.Record(ctx, q, scope, event.ContactUpdated, nil, event.ContactUpdate{Contact: out.Contact, Changed: out.Changed})
	})
	if err != nil {
		return nil, conflictAsExists(ctx, s.Store, scope, id, email, phone, err)
	}
	s.Events.Committed(ctx)
	return out, nil
}

// Delete is DELETE /v1/contacts/{id}; it records contact.deleted.
func (s *Service) Delete(ctx context.Context, id string) (*model.Deleted, error) {
	a, err := auth.ForContacts(ctx)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.Contact(ctx, scope, id)
		if err != nil {
			return view.NotFound(err, apierr.ContactNotFound, "contact", id)
		}
		if err := q.DeleteContact(ctx, scope, id); err != nil {
			return err
		}
		return s.Events.Record(ctx, q, scope, event.ContactDeleted, nil, view.Contact(c))
	})
	if err != nil {
		return nil, err
	}
	s.Events.Committed(ctx)
	return &model.Deleted{ID: id, Object: "contact", Deleted: true}, nil
}

func dedupe(in []string) []string {
	out := in[:0:0]
	for _, v := range in {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}
