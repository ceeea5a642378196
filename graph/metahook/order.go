package metahook

import (
	"context"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/repo"
)

// A customer's events are processed in the order the customer sent them
// (Meta's timestamp), then in the order their hooks arrived, and different
// customers' in parallel. Within a hook, the customer's messages are taken
// in timestamp order (inSentOrder). Each stored hook lists the customers it
// is about (orderKeys) and when the first of its messages was sent
// (firstSent). Processing a hook first processes every pending hook of its
// customers that comes before it (sent earlier, or at the same time and
// received earlier: its job died, or has not run yet), so neither Meta's
// late redelivery nor a crash puts a customer's later message before an
// earlier one; within a process, hooks of one customer take the same lock
// stripe, so they never run side by side. Across processes, the earlier
// hook is processed by whichever comes first, and an inbound message
// stored twice is one (the wamid or mid is unique). A hook that arrives
// after a later-sent one of its customer was processed is processed after
// it: what was stored and announced stays.

// maxPredecessors bounds the earlier hooks one processing catches up.
const maxPredecessors = 50

// stripes serialise, within the process, the processing of hooks that
// share a customer.
var stripes [64]sync.Mutex

// orderKeys lists the customers a payload's events are about.
func orderKeys(p *meta.Payload) []string {
	var keys []string
	for _, ev := range p.Events {
		keys = append(keys, eventKeys(ev)...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// eventKeys lists the customers one event is about.
func eventKeys(ev meta.Event) []string {
	route, customers, _ := orderOf(ev)
	var keys []string
	for _, customer := range customers {
		if customer != "" {
			keys = append(keys, ev.Channel()+":"+route+":"+customer)
		}
	}
	return keys
}

// eventTime is an event's Meta timestamp: when the customer sent a message
// or acted on one (a reaction, an edit, an unsend, a postback, a
// preference, a read), or when a message of ours moved (a status). Zero for
// events without one (comments carry only their entry's time).
func eventTime(ev meta.Event) time.Time {
	_, _, at := orderOf(ev)
	return at
}

// orderOf is what places an event among its customers' events: the route
// and the customers of eventKeys, and the time of eventTime. An event of
// no customer has none of them.
func orderOf(ev meta.Event) (route string, customers []string, at time.Time) {
	switch e := ev.(type) {
	// A WhatsApp customer is known by phone, by business-scoped user
	// id, or both: a hook names each it has, so hooks of one customer
	// with and without a phone still follow one another.
	case *meta.WhatsAppMessage:
		return e.PhoneNumberID, []string{e.From, e.UserID}, e.Timestamp
	case *meta.WhatsAppStatus:
		return e.PhoneNumberID, []string{e.RecipientID, e.RecipientUserID}, e.Timestamp
	case *meta.WhatsAppUserPreference:
		return e.PhoneNumberID, []string{e.WAID, e.UserID}, e.Timestamp
	case *meta.InstagramMessage:
		return e.RouteID(), []string{e.CustomerID()}, e.Timestamp
	case *meta.InstagramRead:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	case *meta.InstagramReaction:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	case *meta.InstagramComment:
		return e.RouteID(), []string{e.FromID}, time.Time{}
	case *meta.InstagramPostback:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	case *meta.InstagramReferral:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	case *meta.InstagramEdit:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	case *meta.InstagramOther:
		return e.RouteID(), []string{e.SenderID}, e.Timestamp
	}
	return "", nil, time.Time{}
}

// inSentOrder is a hook's events with those that have an eventTime sorted
// by it among their own places (equal times keep the payload's order), so
// a customer's messages are taken in the order they were sent, and a
// status or read after the message it names; every other event keeps its
// place.
func inSentOrder(events []meta.Event) []meta.Event {
	var places []int
	var timed []meta.Event
	for i, ev := range events {
		if !eventTime(ev).IsZero() {
			places, timed = append(places, i), append(timed, ev)
		}
	}
	slices.SortStableFunc(timed, func(a, b meta.Event) int { return eventTime(a).Compare(eventTime(b)) })
	out := slices.Clone(events)
	for j, i := range places {
		out[i] = timed[j]
	}
	return out
}

// firstSent is the earliest eventTime of a payload's events other than
// statuses and reads (their time is not when the customer wrote), nil when
// none has one: the hook's arrival then stands in.
func firstSent(p *meta.Payload) *time.Time {
	var first *time.Time
	for _, ev := range p.Events {
		switch ev.(type) {
		case *meta.WhatsAppStatus, *meta.InstagramRead:
			continue
		}
		if at := eventTime(ev); !at.IsZero() && (first == nil || at.Before(*first)) {
			first = &at
		}
	}
	return first
}

// lockKeys takes the stripes of keys in index order (so two hooks never
// wait on each other crosswise) and returns their release, and whether it
// had to wait for another hook of the same stripes.
func lockKeys(keys []string) (unlock func(), waited bool) {
	var idx []int
	for _, k := range keys {
		h := fnv.New32a()
		_, _ = h.Write([]byte(k))
		idx = append(idx, int(h.Sum32()%uint32(len(stripes))))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		if !stripes[i].TryLock() {
			waited = true
			stripes[i].Lock()
		}
	}
	return func() {
		for _, i := range slices.Backward(idx) {
			stripes[i].Unlock()
		}
	}, waited
}

// catchUp processes the pending hooks of h's customers that come before
// it, in their order. A status still early is left for later (it waits for its send,
// not for the customer); any other failure fails h too, so its job runs it
// again after the older one.
func (s *Service) catchUp(ctx context.Context, h *repo.ProviderHook) error {
	older, err := s.Store.PendingPredecessors(ctx, h, maxPredecessors)
	if err != nil {
		return err
	}
	for _, id := range older {
		slog.Info("meta hook: an earlier hook of the same customer is processed first", "hook_id", h.ID, "earlier", id)
		if err := s.processLocked(ctx, id); err != nil && !onlyEarly(err) {
			return err
		}
	}
	return nil
}
