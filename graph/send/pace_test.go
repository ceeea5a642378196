package send

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// fakeTime is an injected clock whose sleeps are recorded, not slept.
type fakeTime struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (f *fakeTime) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeTime) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeTime) sleep(_ context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slept = append(f.slept, d)
	return nil
}

func (f *fakeTime) take() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.slept
	f.slept = nil
	return out
}

func TestPacerSpacesABurstAtTheRate(t *testing.T) {
	clk := &fakeTime{now: time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)}
	p := &Pacer{Rate: WhatsAppRate, MaxWait: 2 * time.Second, Clock: clk.Now, Sleep: clk.sleep}
	ctx := context.Background()

	// 160 sends of one number at one instant: the first goes at once, each
	// next one 12.5 ms later, so no second holds more than 80 calls.
	for range 160 {
		if err := p.Wait(ctx, "106540352242922"); err != nil {
			t.Fatal(err)
		}
	}
	waits := clk.take()
	if len(waits) != 159 {
		t.Fatalf("%d sends waited, want 159 (all but the first)", len(waits))
	}
	starts := append([]time.Duration{0}, waits...)
	for i, s := range starts {
		if want := time.Duration(i) * time.Second / WhatsAppRate; s != want {
			t.Fatalf("send %d starts after %v, want %v", i, s, want)
		}
		if i >= WhatsAppRate && s-starts[i-WhatsAppRate] < time.Second {
			t.Fatalf("sends %d..%d start within %v: more than %d a second", i-WhatsAppRate, i, s-starts[i-WhatsAppRate], WhatsAppRate)
		}
	}

	// Another number is not held up by this one's burst.
	if err := p.Wait(ctx, "106540352242923"); err != nil || len(clk.take()) != 0 {
		t.Error("another number waited")
	}

	// The slot MaxWait away is still taken; the one past it is refused as
	// channel_rate_limited, with the wait as Retry-After, and takes no slot.
	if err := p.Wait(ctx, "106540352242922"); err != nil {
		t.Fatalf("a slot exactly MaxWait away: %v", err)
	}
	if w := clk.take(); len(w) != 1 || w[0] != 2*time.Second {
		t.Fatalf("waited %v, want 2s", w)
	}
	err := p.Wait(ctx, "106540352242922")
	var refusal *channels.Refusal
	if !errors.As(err, &refusal) || refusal.Code != apierr.ChannelRateLimited || refusal.RetryAfter != 2*time.Second+time.Second/WhatsAppRate ||
		refusal.Hold != channels.HoldNone || len(clk.take()) != 0 {
		t.Fatalf("past MaxWait: %v", err)
	}
	again := p.Wait(ctx, "106540352242922")
	if !errors.As(again, &refusal) || refusal.RetryAfter != 2*time.Second+time.Second/WhatsAppRate {
		t.Errorf("a refused send took a slot: the next one is told %v", refusal.RetryAfter)
	}

	// Once the burst has passed, sends under the rate never wait, and an
	// idle number builds up no credit for a later burst.
	clk.advance(10 * time.Second)
	for range 20 {
		if err := p.Wait(ctx, "106540352242922"); err != nil {
			t.Fatal(err)
		}
		clk.advance(20 * time.Millisecond) // 50 a second
	}
	if w := clk.take(); len(w) != 0 {
		t.Errorf("sends under the rate waited %v", w)
	}
}

func TestPacerOffAndCancelled(t *testing.T) {
	var off *Pacer
	if err := off.Wait(context.Background(), "x"); err != nil {
		t.Error(err)
	}
	zero := &Pacer{Clock: time.Now}
	for range 1000 {
		if err := zero.Wait(context.Background(), "x"); err != nil {
			t.Fatal(err)
		}
	}
	// A caller that gives up stops waiting (the real timer).
	p := &Pacer{Rate: 1, Clock: time.Now}
	if err := p.Wait(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}
