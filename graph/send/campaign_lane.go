package send

import (
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/repo"
)

// DefaultPairWindow is the least time between two messages of one WhatsApp
// number to one customer: Meta's pair rate limit (131056) allows about one
// message every 6 seconds to the same user
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/throughput).
const DefaultPairWindow = 6 * time.Second

// lane is the pacing of one pace key's queued messages, as its leading
// pacer keeps it: slots at the key's rate, the pair window of each
// recipient, the marketing holds of single customers (131049) and the
// account's backoff (130429, 131056 over the number, 80007). Its rules
// take the time they are told (the pacer's injected clock).
type lane struct {
	rate   int
	window time.Duration
	// tick is how often the pacer picks: slots missed by less than
	// maxCatchUp (or a tick and one interval) are caught up, older ones
	// are dropped.
	tick time.Duration
	// next is when the next slot starts.
	next time.Time
	// last is each recipient's latest call (or the time its pair window
	// is to count from after a 131056).
	last map[string]time.Time
	// marketingUntil holds one customer's marketing messages back.
	marketingUntil map[string]time.Time
	// pausedUntil holds the whole key back.
	pausedUntil time.Time
	// inflight counts each recipient's calls not answered yet: none of
	// her messages is picked meanwhile, however long the call takes (a
	// slow database before it, a slow provider), so her pair window
	// counts from the answer.
	inflight map[string]int
	// buf are the due queued messages read and not yet called, oldest
	// first.
	buf []repo.QueuedSend
}

// maxCatchUp is how late a slot may still be used: a pick delayed by a
// slow database takes the slots it missed, so the rate holds, and no
// second ever gets more than 1.1 times the rate.
const maxCatchUp = 100 * time.Millisecond

func newLane(rate int, window, tick time.Duration) *lane {
	if rate <= 0 {
		rate = WhatsAppRate
	}
	return &lane{rate: rate, window: window, tick: tick, last: map[string]time.Time{}, marketingUntil: map[string]time.Time{},
		inflight: map[string]int{}}
}

func (l *lane) interval() time.Duration { return time.Second / time.Duration(l.rate) }

// pick takes the messages whose slots have come by now, in the buffer's
// order, at most one per recipient and none within a recipient's pair
// window or to a customer whose marketing is held; it returns them and,
// for messages that must wait (their recipient's window, a marketing
// hold), when they are due. The rest stay buffered. A key paused by a
// backoff takes nothing. After an idle spell the slots restart at now, so
// the rate is never exceeded by a burst of slots saved up.
func (l *lane) pick(now time.Time) (call []repo.QueuedSend, wait map[string]time.Time) {
	if now.Before(l.pausedUntil) {
		return nil, nil
	}
	if catchUp := max(l.tick+l.interval(), maxCatchUp); l.next.IsZero() {
		l.next = now
	} else if l.next.Before(now.Add(-catchUp)) {
		l.next = now.Add(-catchUp)
	}
	keep := l.buf[:0]
	for i, m := range l.buf {
		if l.next.After(now) {
			// No slot left: the rest wait, unread, for the next pick.
			keep = append(keep, l.buf[i:]...)
			break
		}
		switch due := l.dueAt(m); {
		case l.inflight[m.Recipient] > 0:
			keep = append(keep, m)
		case due.After(now):
			if wait == nil {
				wait = map[string]time.Time{}
			}
			wait[m.MessageID] = due
		default:
			call = append(call, m)
			l.last[m.Recipient] = now
			l.inflight[m.Recipient]++
			l.next = l.next.Add(l.interval())
		}
	}
	l.buf = keep
	return call, wait
}

// dueAt is the earliest a message may be called: after its recipient's
// pair window and, for marketing, the customer's marketing hold.
func (l *lane) dueAt(m repo.QueuedSend) time.Time {
	var due time.Time
	if last, ok := l.last[m.Recipient]; ok {
		due = last.Add(l.window)
	}
	if until := l.marketingUntil[m.Recipient]; m.Marketing && until.After(due) {
		due = until
	}
	return due
}

// apply takes a provider's answer into the lane's rules: an accepted
// message's pair window runs from its answer; a rate limit on
// the number (130429, 80007 and the like) pauses the whole key for its
// Retry-After, a pair rate limit (131056) holds that customer for it, and
// a marketing limit (131049) that customer's marketing messages only.
func (l *lane) apply(m repo.QueuedSend, out QueuedOutcome, now time.Time) {
	if l.inflight[m.Recipient]--; l.inflight[m.Recipient] <= 0 {
		delete(l.inflight, m.Recipient)
	}
	if out.Sent {
		// The window counts from the answer too: the call reached the
		// provider some time after it was picked.
		if l.last[m.Recipient].Before(now) {
			l.last[m.Recipient] = now
		}
		return
	}
	if out.RetryAfter <= 0 {
		return
	}
	until := now.Add(out.RetryAfter)
	switch out.Hold {
	case channels.HoldRecipient:
		l.last[m.Recipient] = until.Add(-l.window)
	case channels.HoldMarketing:
		l.marketingUntil[m.Recipient] = until
	case channels.HoldAccount:
		if until.After(l.pausedUntil) {
			l.pausedUntil = until
		}
	}
}

// prune forgets the recipients whose windows and holds have passed.
func (l *lane) prune(now time.Time) {
	for r, at := range l.last {
		if !at.Add(l.window).After(now) {
			delete(l.last, r)
		}
	}
	for r, at := range l.marketingUntil {
		if !at.After(now) {
			delete(l.marketingUntil, r)
		}
	}
}

// buffered lists the ids the lane holds, for the next read to skip.
func (l *lane) buffered() []string {
	ids := make([]string, len(l.buf))
	for i, m := range l.buf {
		ids[i] = m.MessageID
	}
	return ids
}
