package graph

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/vikstrous/dataloadgen"
)

// Loaders batch the look-ups of one GraphQL request, so a page of 100
// conversations with their contacts costs two queries, not 101.
type Loaders struct {
	contacts *dataloadgen.Loader[string, *model.Contact]
	attempts *dataloadgen.Loader[string, []*model.WebhookDeliveryAttempt]
}

type loadersKey struct{}

// WithLoaders returns a context with fresh per-request loaders.
func (r *Resolver) WithLoaders(ctx context.Context) context.Context {
	l := &Loaders{contacts: dataloadgen.NewMappedLoader(r.fetchContacts, dataloadgen.WithWait(2*time.Millisecond)),
		attempts: dataloadgen.NewMappedLoader(r.Webhooks.AttemptLogs, dataloadgen.WithWait(2*time.Millisecond))}
	return context.WithValue(ctx, loadersKey{}, l)
}

// LoadersFrom returns the loaders of a request (WithLoaders put them there).
func LoadersFrom(ctx context.Context) *Loaders {
	l, _ := ctx.Value(loadersKey{}).(*Loaders)
	return l
}

func (r *Resolver) fetchContacts(ctx context.Context, ids []string) (map[string]*model.Contact, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := r.Store.ContactsByID(ctx, a.Scope(), ids)
	out := make(map[string]*model.Contact, len(rows))
	for i := range rows {
		out[rows[i].ID] = view.Contact(&rows[i])
	}
	return out, err
}

// customer loads the full contact of a conversation through the batch.
func (l *Loaders) customer(ctx context.Context, c *model.Conversation) (*model.Contact, error) {
	if c.ContactID == nil || l == nil {
		return nil, nil
	}
	contact, err := l.contacts.Load(ctx, *c.ContactID)
	if errors.Is(err, dataloadgen.ErrNotFound) {
		return nil, nil
	}
	return contact, err
}

// attemptLog loads a delivery's attempts through the batch (one query for
// a page of deliveries), or alone without loaders.
func (l *Loaders) attemptLog(ctx context.Context, r *Resolver, deliveryID string) ([]*model.WebhookDeliveryAttempt, error) {
	if l == nil {
		m, err := r.Webhooks.AttemptLogs(ctx, []string{deliveryID})
		return m[deliveryID], err
	}
	return l.attempts.Load(ctx, deliveryID)
}
