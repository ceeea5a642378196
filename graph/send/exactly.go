package send

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Exactly once to the customer (docs/api.md, Delivery guarantees):
//
//   - a send's Idempotency-Key is bound to the message its reserve stores,
//     in the reserve's transaction (KeyBinding), so every retry answers
//     from that message and never calls the provider again;
//   - a provider call whose request went out and whose answer never came
//     leaves the message sending and answers 202 (unknown): a status of
//     the provider settles it, or the sweep gives it up as provider_unknown
//     after UnknownAfter;
//   - a confirm that meets a database error is tried again (settleRetrying),
//     in the request and then in the background, never answered as a
//     refusal: the provider took the message;
//   - a refused send removes what its reserve created (send_creations), so
//     it leaves nothing behind.

// DefaultUnknownAfter is how long a message whose provider call had no
// answer waits for a status before it is failed as provider_unknown
// (MSGSVC_PROVIDER_UNKNOWN_AFTER).
const DefaultUnknownAfter = 15 * time.Minute

// KeyBinding is the Idempotency-Key a send runs under, as rest claimed it.
// The reserve binds it to its message in its own transaction and sets
// MessageID once that committed.
type KeyBinding struct {
	APIKeyID, Key, RequestID string
	// MessageID is the message the key is bound to; "" while none is.
	MessageID string
}

// bindKey binds the send's key to its message inside the reserve; a key a
// retry took over meanwhile refuses the reserve, so two requests never both
// reserve under one key.
func bindKey(ctx context.Context, q repo.Queries, b *KeyBinding, msgID string) error {
	if b == nil {
		return nil
	}
	ok, err := q.BindIdempotencyKey(ctx, b.APIKeyID, b.Key, b.RequestID, msgID)
	if err != nil {
		return err
	}
	if !ok {
		e := apierr.New(apierr.IdempotencyInProgress, "Another request took Idempotency-Key %q over; retry to get its answer.", b.Key)
		e.RetryAfter = time.Second
		return e
	}
	return nil
}

// AnnounceCreations records contact.created and conversation.created for
// what a live send's reserve created, when its message is settled (sent,
// unknown, or given up), in the transaction that settles it and before
// that message's own event. It does nothing when they were announced
// already or the send created nothing.
func AnnounceCreations(ctx context.Context, q repo.Queries, rec event.Recorder, s repo.Scope, messageID string) error {
	c, err := q.TakeSendCreations(ctx, messageID)
	if err != nil || c == nil {
		return err
	}
	s.Channels = nil
	if c.ContactID != nil {
		contact, err := q.Contact(ctx, s, *c.ContactID)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		if err == nil {
			if err := rec.Record(ctx, q, s, event.ContactCreated, nil, view.Contact(contact)); err != nil {
				return err
			}
		}
	}
	if c.ConversationID != nil {
		conv, err := q.Conversation(ctx, s, *c.ConversationID)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		if err == nil {
			out := view.Conversation(conv)
			return rec.Record(ctx, q, s, event.ConversationCreated, out, out)
		}
	}
	return nil
}

// settleBackoff is the wait before each further try of a settle step
// (confirm, release, unknown) that met a database error, in the request:
// about 6 s in all, then the background takes over.
var settleBackoff = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond,
	400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond}

// backgroundEvery is the wait between the background's tries.
var backgroundEvery = 5 * time.Second

// settleRetrying runs a settle step until it succeeds or answers an API
// error (a decision, not a fault), waiting settleBackoff between tries.
// When every try failed it answers the last error, and, with background
// set, goes on trying every backgroundEvery until UnknownAfter has run out
// (the sweep's turn then).
func (s *Service) settleRetrying(ctx context.Context, what, messageID string, background bool, step func(context.Context) error) error {
	err := step(ctx)
	for _, wait := range settleBackoff {
		if err == nil || isDecision(err) {
			return err
		}
		slog.Warn("send: "+what+" failed; trying again", "message_id", messageID, "err", err)
		time.Sleep(wait)
		err = step(ctx)
	}
	if err == nil || isDecision(err) || !background {
		return err
	}
	slog.Error("send: "+what+" failed; going on in the background", "message_id", messageID, "err", err)
	go func() {
		deadline := time.Now().Add(s.unknownAfter())
		for time.Now().Before(deadline) {
			time.Sleep(backgroundEvery)
			err := step(ctx)
			if err == nil || isDecision(err) {
				slog.Info("send: "+what+" done in the background", "message_id", messageID, "err", err)
				return
			}
		}
		slog.Error("send: "+what+" given up; the sweep settles the message", "message_id", messageID)
	}()
	return err
}

// isDecision says an error is an answer (an API error), not a fault worth
// another try.
func isDecision(err error) bool {
	_, ok := apierr.As(err)
	return ok
}

func (s *Service) unknownAfter() time.Duration {
	if s.UnknownAfter > 0 {
		return s.UnknownAfter
	}
	return DefaultUnknownAfter
}

// unknown answers a send whose provider call went out and got no answer:
// the message stays sending (202), what its reserve created is announced
// (the customer may have the message), and nothing sends it again. The
// provider's status settles it (graph/metahook), or the sweep after
// UnknownAfter. A database error here changes nothing of that: the
// announcements are then made by whoever settles the message.
func (s *Service) unknown(ctx context.Context, res *reservation, pending *model.Message, callErr error) *model.Message {
	msg := res.msg
	slog.Warn("send: the provider's answer never came; the message stays sending until its status settles it",
		"message_id", msg.ID, "channel", msg.Channel, "account", res.ob.Account.ID, "err", callErr)
	if !res.created {
		return pending
	}
	scope := repo.Scope{WorkspaceID: msg.WorkspaceID, Livemode: msg.Livemode}
	announced := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		// The conversation first, as every writer of its events locks.
		if _, err := q.LockConversation(ctx, scope, msg.ConversationID); err != nil {
			return ignoreGone(err)
		}
		announced = true
		return AnnounceCreations(ctx, q, s.Events, scope, msg.ID)
	})
	if err != nil {
		slog.Warn("send: the creations of an unknown send are announced when it settles", "message_id", msg.ID, "err", err)
	} else if announced {
		s.Events.CommittedSends(ctx)
	}
	return pending
}
