package metahook

import (
	"context"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/repo"
)

// A customer's events are processed in the order their hooks arrived, and
// different customers' in parallel. Each stored hook lists the customers it
// is about (orderKeys). Processing a hook first processes every older hook
// of its customers still pending (its job died, or has not run yet), so a
// crash cannot put a customer's later message before an earlier one; within
// a process, hooks of one customer take the same lock stripe, so they never
// run side by side. Across processes, the older hook is processed by
// whichever comes first, and an inbound message stored twice is one (the
// wamid or mid is unique).

// maxPredecessors bounds the older hooks one processing catches up.
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
	var keys []string
	add := func(channel, route, customer string) {
		if customer != "" {
			keys = append(keys, channel+":"+route+":"+customer)
		}
	}
	switch e := ev.(type) {
	// A WhatsApp customer is known by phone, by business-scoped user
	// id, or both: a hook names each it has, so hooks of one customer
	// with and without a phone still follow one another.
	case *meta.WhatsAppMessage:
		add("whatsapp", e.PhoneNumberID, e.From)
		add("whatsapp", e.PhoneNumberID, e.UserID)
	case *meta.WhatsAppStatus:
		add("whatsapp", e.PhoneNumberID, e.RecipientID)
		add("whatsapp", e.PhoneNumberID, e.RecipientUserID)
	case *meta.WhatsAppUserPreference:
		add("whatsapp", e.PhoneNumberID, e.WAID)
		add("whatsapp", e.PhoneNumberID, e.UserID)
	case *meta.InstagramMessage:
		add("instagram", e.RouteID(), e.CustomerID())
	case *meta.InstagramRead:
		add("instagram", e.RouteID(), e.SenderID)
	case *meta.InstagramReaction:
		add("instagram", e.RouteID(), e.SenderID)
	case *meta.InstagramComment:
		add("instagram", e.RouteID(), e.FromID)
	}
	return keys
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

// catchUp processes the older pending hooks of h's customers, oldest
// first. A status still early is left for later (it waits for its send,
// not for the customer); any other failure fails h too, so its job runs it
// again after the older one.
func (s *Service) catchUp(ctx context.Context, h *repo.ProviderHook) error {
	older, err := s.Store.PendingPredecessors(ctx, h, maxPredecessors)
	if err != nil {
		return err
	}
	for _, id := range older {
		slog.Info("meta hook: an older hook of the same customer is processed first", "hook_id", h.ID, "older", id)
		if err := s.processLocked(ctx, id); err != nil && !onlyEarly(err) {
			return err
		}
	}
	return nil
}
