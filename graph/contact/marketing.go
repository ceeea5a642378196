package contact

import (
	"context"
	"errors"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// SetMarketingOptOut sets (a user_preferences stop, a 131050) or clears (a
// resume) marketing_opt_outs.whatsapp of the scope's contact with a phone
// or WhatsApp user id (who),
// recording contact.updated in q's transaction. It reports whether a
// contact changed: the caller announces the event after its commit. No
// contact with it, or one already so, changes nothing.
func SetMarketingOptOut(ctx context.Context, q repo.Queries, events event.Recorder, s repo.Scope, who string, optOut bool, now time.Time) (bool, error) {
	c, err := q.SetMarketingOptOut(ctx, s, who, optOut, now)
	if errors.Is(err, repo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, events.Record(ctx, q, s, event.ContactUpdated, nil,
		event.ContactUpdate{Contact: view.Contact(c), Changed: []string{"marketing_opt_outs"}})
}
