package contact

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// Kind is what an opt-out stops: every message on its channel, or
// marketing messages only (WhatsApp).
type Kind string

const (
	All       Kind = "all"
	Marketing Kind = "marketing"
)

// OptOut is one change of a contact's opt-outs: on Channel, of Kind, set
// (Stop) or cleared, for the contact named by ContactID or, when that is
// empty, by its Address on the channel (a phone or WhatsApp user id, an
// email address, an Instagram user id).
type OptOut struct {
	Channel   string
	Kind      Kind
	Stop      bool
	ContactID string
	Address   string
}

// optOutFlags are the flags an opt-out changes, by channel and kind, with
// the name contact.updated gives them in changed.
var optOutFlags = map[OptOut]struct{ column, changed string }{
	{Channel: "whatsapp", Kind: All}:       {"opt_out_whatsapp", "opt_outs"},
	{Channel: "email", Kind: All}:          {"opt_out_email", "opt_outs"},
	{Channel: "instagram", Kind: All}:      {"opt_out_instagram", "opt_outs"},
	{Channel: "whatsapp", Kind: Marketing}: {"marketing_opt_out_whatsapp", "marketing_opt_outs"},
}

// OptOutStore is what SetOptOut writes through: the conditional update of
// one flag and the event of its change (repo.Queries in a transaction).
type OptOutStore interface {
	event.Inserter
	SetOptOut(ctx context.Context, s repo.Scope, column, by, who string, value bool, at time.Time) (*repo.Contact, error)
}

// SetOptOut is the one way a contact's opt-outs change outside a PATCH (a
// STOP, an unsubscribe link, a provider's opt-out code, a preference
// resume): it changes the flag in one statement and records contact.updated
// in st's transaction, naming opt_outs or marketing_opt_outs. It returns
// the contact when it changed, nil when no contact matches or the flag
// already is so (no event); the caller announces the event after its
// commit.
func SetOptOut(ctx context.Context, st OptOutStore, events event.Recorder, s repo.Scope, o OptOut, now time.Time) (*repo.Contact, error) {
	flag, ok := optOutFlags[OptOut{Channel: o.Channel, Kind: o.Kind}]
	if !ok {
		return nil, fmt.Errorf("contact: no %s opt-out on %s", o.Kind, o.Channel)
	}
	by, who := "id", o.ContactID
	if who == "" {
		by, who = o.Channel, o.Address
	}
	c, err := st.SetOptOut(ctx, s, flag.column, by, who, o.Stop, now)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c, events.Record(ctx, st, s, event.ContactUpdated, nil,
		event.ContactUpdate{Contact: view.Contact(c), Changed: []string{flag.changed}})
}
