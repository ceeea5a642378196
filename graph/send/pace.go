package send

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
)

// WhatsAppRate is the throughput Meta allows one WhatsApp number by default
// (channels.md 1.9: 130429 beyond it), in messages a second.
const WhatsAppRate = 80

// DefaultPaceWait is the longest a send waits for its number's slot before
// it answers 429 channel_rate_limited instead.
const DefaultPaceWait = 5 * time.Second

// Pacer spaces the provider calls of one sending account evenly at Rate a
// second, so a burst on a WhatsApp number waits a few milliseconds a
// message instead of drawing Meta's 130429, which would hold the whole
// number back. It is off unless MSGSVC_WHATSAPP_PACE sets a rate (no
// pacing by default). Under Rate nothing waits. A send whose slot is
// more than MaxWait away is refused as channel_rate_limited with the wait
// as Retry-After, before any call. It paces one process; the holds of a
// 130429 or 131056 (provider_holds) hold every process back.
type Pacer struct {
	// Rate is calls a second per account; 0 paces nothing.
	Rate int
	// MaxWait bounds a wait (DefaultPaceWait when 0).
	MaxWait time.Duration
	Clock   clock.Clock
	// Sleep waits d or until ctx ends; nil uses a timer (tests inject one
	// that moves their clock).
	Sleep func(ctx context.Context, d time.Duration) error

	mu sync.Mutex
	// next is, per account, when its next call may start.
	next map[string]time.Time
}

// Wait returns when account may call its provider: at once under the rate,
// after its slot in a burst, or a channel_rate_limited refusal when the
// slot is too far.
func (p *Pacer) Wait(ctx context.Context, account string) error {
	if p == nil || p.Rate <= 0 {
		return nil
	}
	wait, err := p.slot(account)
	if err != nil || wait <= 0 {
		return err
	}
	sleep := p.Sleep
	if sleep == nil {
		sleep = timerSleep
	}
	return sleep(ctx, wait)
}

// slot takes the account's next slot and says how long until it starts.
func (p *Pacer) slot(account string) (time.Duration, error) {
	interval := time.Second / time.Duration(p.Rate)
	maxWait := p.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultPaceWait
	}
	now := p.Clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == nil {
		p.next = map[string]time.Time{}
	}
	start := p.next[account]
	if start.Before(now) {
		start = now
	}
	wait := start.Sub(now)
	if wait > maxWait {
		return 0, &channels.Refusal{Code: apierr.ChannelRateLimited, RetryAfter: wait,
			Reason: fmt.Sprintf("more than %d messages a second on account %s; paced before the provider was called", p.Rate, account)}
	}
	p.next[account] = start.Add(interval)
	return wait, nil
}

func timerSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// paceKey is what Meta's throughput limit counts: the number at Meta, which
// accounts of several workspaces may share.
func paceKey(acc channels.Account) string {
	if acc.Provider != nil && acc.Provider.PhoneNumberID != "" {
		return acc.Provider.PhoneNumberID
	}
	return acc.ID
}
