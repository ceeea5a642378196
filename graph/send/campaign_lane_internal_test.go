package send

import (
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/repo"
)

var laneEpoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// queued makes n queued messages to recipients r0..r{customers-1} in
// turn, marketing when asked.
func queued(n, customers int, marketing bool) []repo.QueuedSend {
	out := make([]repo.QueuedSend, n)
	for i := range out {
		out[i] = repo.QueuedSend{MessageID: fmt.Sprintf("msg_%05d", i), Recipient: fmt.Sprintf("r%d", i%customers), Marketing: marketing}
	}
	return out
}

// run picks every tick from start to end, refilling nothing, and returns
// the calls with their times.
func (l *lane) run(start, end time.Time, tick time.Duration, each func(now time.Time, m repo.QueuedSend)) int {
	n := 0
	for now := start; now.Before(end); now = now.Add(tick) {
		call, _ := l.pick(now)
		for _, m := range call {
			each(now, m)
		}
		n += len(call)
	}
	return n
}

// The rate is the tier's: over ten seconds of 20 ms ticks a lane calls its
// rate a second (less the first tick's), and never more within any one
// second.
func TestLaneKeepsTheTierRate(t *testing.T) {
	for _, rate := range []int{80, 1000} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			l := newLane(rate, 0, 20*time.Millisecond)
			l.buf = queued(rate*20, rate*20, false)
			perSecond := map[int64]int{}
			n := l.run(laneEpoch, laneEpoch.Add(10*time.Second), 20*time.Millisecond, func(now time.Time, _ repo.QueuedSend) {
				perSecond[now.Unix()]++
			})
			// The first tick has one slot, every later one a tick's worth.
			if n < rate*10*98/100 || n > rate*10+1 {
				t.Fatalf("%d calls in 10 s at %d/s", n, rate)
			}
			for s, c := range perSecond {
				if c > rate*11/10 {
					t.Fatalf("second %d had %d calls at %d/s", s-laneEpoch.Unix(), c, rate)
				}
			}
		})
	}
}

// While a customer's call is in flight none of her messages is picked,
// whatever the pair window; her window then counts from the answer.
func TestLaneWaitsForTheCallInFlight(t *testing.T) {
	l := newLane(80, time.Second, 20*time.Millisecond)
	l.buf = queued(2, 1, false)
	if call, _ := l.pick(laneEpoch); len(call) != 1 {
		t.Fatalf("first pick called %v", call)
	}
	if call, wait := l.pick(laneEpoch.Add(5 * time.Second)); len(call) != 0 || len(wait) != 0 {
		t.Fatalf("picked %v, waiting %v while her first call is in flight", call, wait)
	}
	l.apply(repo.QueuedSend{Recipient: "r0"}, QueuedOutcome{Sent: true}, laneEpoch.Add(5*time.Second))
	if call, wait := l.pick(laneEpoch.Add(5*time.Second + 20*time.Millisecond)); len(call) != 0 ||
		!wait["msg_00001"].Equal(laneEpoch.Add(6*time.Second)) {
		t.Fatalf("after the answer: picked %v, waiting %v; want due a window after the answer", call, wait)
	}
}

// A lane that was idle does not burst the slots it saved up: at most those
// of the catch-up (maxCatchUp, 100 ms: 8 at 80/s) and the current one.
func TestLaneDoesNotBurstAfterIdle(t *testing.T) {
	l := newLane(80, 0, 20*time.Millisecond)
	l.next = laneEpoch.Add(-time.Hour)
	l.buf = queued(500, 500, false)
	call, _ := l.pick(laneEpoch)
	if len(call) > 9 {
		t.Fatalf("%d calls at once after an idle hour, want at most 100 ms worth", len(call))
	}
}

// No customer gets two messages within the pair window: 4 messages each
// to 10 customers at 80/s go out about one round per window, and the
// ones that must wait are told when they are due.
func TestLanePairWindow(t *testing.T) {
	window := DefaultPairWindow
	l := newLane(80, window, 20*time.Millisecond)
	all := queued(40, 10, false)
	byID := map[string]repo.QueuedSend{}
	for _, m := range all {
		byID[m.MessageID] = m
	}
	l.buf = append([]repo.QueuedSend(nil), all...)
	last := map[string]time.Time{}
	pending := map[string]time.Time{} // deferred: back in the buffer once due
	waits, calls := 0, 0
	for now := laneEpoch; now.Before(laneEpoch.Add(30 * time.Second)); now = now.Add(20 * time.Millisecond) {
		for id, due := range pending {
			if !due.After(now) {
				l.buf = append(l.buf, byID[id])
				delete(pending, id)
			}
		}
		call, wait := l.pick(now)
		for id, due := range wait {
			if !due.After(now) {
				t.Fatalf("message %s deferred to %s, not after now", id, due)
			}
			pending[id] = due
			waits++
		}
		for _, m := range call {
			if at, ok := last[m.Recipient]; ok && now.Sub(at) < window {
				t.Fatalf("%s called %s after its last message, within the pair window", m.Recipient, now.Sub(at))
			}
			last[m.Recipient] = now
			calls++
			l.apply(m, QueuedOutcome{Sent: true}, now) // answered at once
		}
	}
	if calls != 40 {
		t.Fatalf("%d of 40 messages called in 30 s", calls)
	}
	if waits == 0 {
		t.Fatal("nothing waited for a pair window")
	}
}

// A 131049 holds that customer's marketing messages for the Retry-After,
// and nothing else: her utility messages and other customers' marketing
// go on.
func TestLaneMarketingLimitHoldsOneCustomer(t *testing.T) {
	l := newLane(80, 0, 20*time.Millisecond)
	l.apply(repo.QueuedSend{Recipient: "r0", Marketing: true},
		QueuedOutcome{RetryAfter: time.Minute, Hold: channels.HoldMarketing}, laneEpoch)
	l.buf = []repo.QueuedSend{{MessageID: "a", Recipient: "r0", Marketing: true}, {MessageID: "b", Recipient: "r0"},
		{MessageID: "c", Recipient: "r1", Marketing: true}}
	call, wait := l.pick(laneEpoch.Add(time.Second))
	more, _ := l.pick(laneEpoch.Add(time.Second + 20*time.Millisecond))
	call = append(call, more...)
	if len(call) != 2 || call[0].MessageID != "b" || call[1].MessageID != "c" {
		t.Fatalf("called %v, want b and c", call)
	}
	if due := wait["a"]; !due.Equal(laneEpoch.Add(time.Minute)) {
		t.Fatalf("r0's marketing message due at %v, want the hold's end", due)
	}
}

// A rate limit on the number (130429, 80007) pauses the whole key for its
// Retry-After; a pair rate limit (131056) only that customer.
func TestLaneBacksOffWithRetryAfter(t *testing.T) {
	l := newLane(80, DefaultPairWindow, 20*time.Millisecond)
	l.buf = queued(100, 100, false)
	l.apply(repo.QueuedSend{Recipient: "x"}, QueuedOutcome{Requeued: true, RetryAfter: 30 * time.Second, Hold: channels.HoldAccount}, laneEpoch)
	if call, _ := l.pick(laneEpoch.Add(29 * time.Second)); len(call) != 0 {
		t.Fatalf("%d calls during the backoff", len(call))
	}
	if call, _ := l.pick(laneEpoch.Add(30 * time.Second)); len(call) == 0 {
		t.Fatal("nothing called once the Retry-After ran out")
	}
	p := newLane(80, DefaultPairWindow, 20*time.Millisecond)
	p.apply(repo.QueuedSend{Recipient: "r0"}, QueuedOutcome{Requeued: true, RetryAfter: 20 * time.Second, Hold: channels.HoldRecipient}, laneEpoch)
	p.buf = []repo.QueuedSend{{MessageID: "a", Recipient: "r0"}, {MessageID: "b", Recipient: "r1"}}
	call, wait := p.pick(laneEpoch.Add(time.Second))
	if len(call) != 1 || call[0].MessageID != "b" || !wait["a"].Equal(laneEpoch.Add(20*time.Second)) {
		t.Fatalf("after a 131056 on r0: called %v, waiting %v", call, wait)
	}
}

// prune forgets windows that have passed, keeps the others.
func TestLanePrune(t *testing.T) {
	l := newLane(80, DefaultPairWindow, 20*time.Millisecond)
	l.last["old"], l.last["new"] = laneEpoch.Add(-7*time.Second), laneEpoch.Add(-time.Second)
	l.marketingUntil["old"], l.marketingUntil["new"] = laneEpoch, laneEpoch.Add(time.Second)
	l.prune(laneEpoch)
	if _, ok := l.last["old"]; ok || len(l.last) != 1 || len(l.marketingUntil) != 1 {
		t.Fatalf("after prune: %v %v", l.last, l.marketingUntil)
	}
}
