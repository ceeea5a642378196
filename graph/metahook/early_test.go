package metahook

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// sendingStore answers WhatsAppSending; nothing else is called.
type sendingStore struct {
	Store
	sending bool
	asked   []string
}

func (f *sendingStore) WhatsAppSending(_ context.Context, pnid string) (bool, error) {
	f.asked = append(f.asked, pnid)
	return f.sending, nil
}

// noSettle fails the test if a status without biz_opaque_callback_data
// tries to settle a message.
func noSettle(t *testing.T) func(context.Context) (named, error) {
	return func(context.Context) (named, error) {
		t.Error("settle called for a status without biz_opaque_callback_data")
		return namedNothing, nil
	}
}

// A status of a wamid not stored yet is processed again (ErrStatusEarly)
// while its hook is younger than the wait or a send on the number is still
// sending, and dropped after; a wamid that became known meanwhile is
// applied.
func TestStatusOfAnUnknownWamid(t *testing.T) {
	received := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	st := &meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "pnid_1"}, ID: "wamid.X", Status: "delivered"}
	for _, c := range []struct {
		name    string
		age     time.Duration
		sending bool
		// knownAt is the lookup (1st, 2nd) from which the wamid is stored;
		// 0 never.
		knownAt int
		want    error
		lookups int
		asked   int
	}{
		{name: "known at once", age: 0, knownAt: 1, want: nil, lookups: 1},
		{name: "young hook, nothing sending", age: 59 * time.Second, want: ErrStatusEarly, lookups: 1},
		{name: "old hook, a send still sending", age: 5 * time.Minute, sending: true, want: ErrStatusEarly, lookups: 1, asked: 1},
		{name: "old hook, nothing sending: dropped", age: time.Minute, want: nil, lookups: 2, asked: 1},
		{name: "confirmed between lookup and check", age: 2 * time.Minute, knownAt: 2, want: nil, lookups: 2, asked: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := &sendingStore{sending: c.sending}
			now := received.Add(c.age)
			s := &Service{Store: store, Clock: func() time.Time { return now }}
			lookups := 0
			err := s.statusOf(t.Context(), st, received, func(context.Context) (bool, error) {
				lookups++
				return c.knownAt != 0 && lookups >= c.knownAt, nil
			}, noSettle(t))
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("err %v, want %v", err, c.want)
			}
			if lookups != c.lookups || len(store.asked) != c.asked {
				t.Errorf("%d lookups and %d sending checks, want %d and %d", lookups, len(store.asked), c.lookups, c.asked)
			}
			for _, pnid := range store.asked {
				if pnid != "pnid_1" {
					t.Errorf("sending asked of %q, want the status's phone_number_id", pnid)
				}
			}
		})
	}
}

// EarlyStatusWait, when set, replaces the default wait.
func TestStatusOfWaitIsConfigurable(t *testing.T) {
	received := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	s := &Service{Store: &sendingStore{}, Clock: func() time.Time { return received.Add(10 * time.Second) }, EarlyStatusWait: 5 * time.Second}
	unknown := func(context.Context) (bool, error) { return false, nil }
	if err := s.statusOf(t.Context(), &meta.WhatsAppStatus{ID: "wamid.Y", Status: "read"}, received, unknown, noSettle(t)); err != nil {
		t.Errorf("10 s after a 5 s wait, nothing sending: %v, want dropped (nil)", err)
	}
	s.EarlyStatusWait = 0
	if err := s.statusOf(t.Context(), &meta.WhatsAppStatus{ID: "wamid.Y", Status: "read"}, received, unknown, noSettle(t)); !errors.Is(err, ErrStatusEarly) {
		t.Errorf("10 s into the default wait: %v, want ErrStatusEarly", err)
	}
}
