package metahook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// rank orders statuses: a status moves forward only.
var rank = map[string]int{"sending": 0, "sent": 1, "delivered": 2, "read": 3, "failed": 4}

// forward says whether a status may follow another: sent → delivered →
// read, and failed only from sent or delivered.
func forward(from, to string) bool {
	if to == "failed" {
		return from == "sending" || from == "sent" || from == "delivered"
	}
	return from != "failed" && rank[to] > rank[from]
}

// DefaultEarlyStatusWait is how long a status of a wamid none of our
// messages has yet is processed again, whatever else holds.
const DefaultEarlyStatusWait = time.Minute

// ErrStatusEarly is a status of a wamid not stored yet: its hook is
// processed again later (the job's retry, then the sweep).
var ErrStatusEarly = errors.New("metahook: a status arrived before the wamid it names was stored; processed again later")

// onlyEarly says every failure err joins is ErrStatusEarly: a hook that
// failed so waits for its sends, not its customers, and is never given up;
// one with any other failure too is a failed hook.
func onlyEarly(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !onlyEarly(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, ErrStatusEarly)
}

// status applies a status of one provider message to its message: forward
// only, the message's status the least advanced of its parts (failed if any
// failed), message.status on a change. See statusOf for a wamid not known.
func (s *Service) status(ctx context.Context, st *meta.WhatsAppStatus, received time.Time) error {
	next := st.Status
	if _, ok := rank[next]; !ok || next == "sending" {
		slog.Info("meta hook: status not tracked", "wamid", st.ID, "status", next)
		return nil
	}
	return s.statusOf(ctx, st, received, func(ctx context.Context) (bool, error) { return s.applyKnown(ctx, st) },
		func(ctx context.Context) (named, error) { return s.settleNamed(ctx, st) })
}

// statusOf applies a status through apply, which reports whether the
// wamid is one of our messages. Meta may post a status before the send
// that got the wamid confirmed it (reserve → call → confirm: the wamid is
// stored only at confirm), so a status of an unknown wamid is processed
// again (ErrStatusEarly) while its hook is younger than EarlyStatusWait or
// while a send on the number is still sending; after that it is logged and
// dropped: a send is sending for at most MSGSVC_PROVIDER_UNKNOWN_AFTER, so
// the wait is bounded.
//
// A status of an unknown wamid that carries biz_opaque_callback_data (our
// message id, which every /messages send carries) goes to settle first: a
// message still sending (its provider call got no answer, or its process
// died before confirm stored the wamid) or given up as provider_unknown is
// settled with the wamid and the status then applied through apply.
func (s *Service) statusOf(ctx context.Context, st *meta.WhatsAppStatus, received time.Time, apply func(context.Context) (bool, error), settle func(context.Context) (named, error)) error {
	known, err := apply(ctx)
	if err != nil || known {
		return err
	}
	if st.BizOpaqueCallbackData != "" {
		n, err := settle(ctx)
		switch {
		case err != nil:
			return err
		case n == namedSending:
			return ErrStatusEarly
		case n == namedSettled:
			if known, err = apply(ctx); err == nil && !known {
				err = fmt.Errorf("metahook: wamid %s settled message %s but is not found", st.ID, st.BizOpaqueCallbackData)
			}
			return err
		}
	}
	wait := s.EarlyStatusWait
	if wait <= 0 {
		wait = DefaultEarlyStatusWait
	}
	if s.Clock.Now().Sub(received) < wait {
		return ErrStatusEarly
	}
	sending, err := s.Store.WhatsAppSending(ctx, st.PhoneNumberID)
	if err != nil {
		return err
	}
	if sending {
		return ErrStatusEarly
	}
	// A confirm may have committed between the lookup and the check.
	if known, err = apply(ctx); err != nil || known {
		return err
	}
	slog.Info("meta hook: status of an unknown message; dropped", "wamid", st.ID, "status", st.Status,
		"phone_number_id", st.PhoneNumberID, "received_at", received)
	return nil
}
