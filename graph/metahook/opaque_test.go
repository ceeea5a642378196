package metahook

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/repo"
)

// A status of an unknown wamid naming a message by biz_opaque_callback_data:
// a settled (provider_unknown) message gets the status applied at once,
// whatever the wait; one still sending is processed again even past the
// wait with nothing sending on the number; one naming nothing falls back
// to the wait and the drop.
func TestStatusOfAnUnknownWamidWithCallback(t *testing.T) {
	received := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		age       time.Duration
		callback  string
		named     named
		settleErr error
		want      error
		// lookups of the wamid, settle calls, sending checks
		lookups, settles, asked int
	}{
		{name: "settled: applied at once", age: 0, callback: "msg_1", named: namedSettled, want: nil, lookups: 2, settles: 1},
		{name: "settled past the wait", age: time.Hour, callback: "msg_1", named: namedSettled, want: nil, lookups: 2, settles: 1},
		{name: "named message sending, past the wait", age: time.Hour, callback: "msg_1", named: namedSending, want: ErrStatusEarly, lookups: 1, settles: 1},
		{name: "names nothing, young hook", age: time.Second, callback: "msg_x", named: namedNothing, want: ErrStatusEarly, lookups: 1, settles: 1},
		{name: "names nothing, old hook: dropped", age: time.Hour, callback: "msg_x", named: namedNothing, want: nil, lookups: 2, settles: 1, asked: 1},
		{name: "settle fails: retried", age: time.Hour, callback: "msg_1", settleErr: errBoom, want: errBoom, lookups: 1, settles: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := &sendingStore{}
			now := received.Add(c.age)
			s := &Service{Store: store, Clock: func() time.Time { return now }}
			st := &meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "pnid_1"}, ID: "wamid.X",
				Status: "delivered", BizOpaqueCallbackData: c.callback}
			lookups, settles, settled := 0, 0, false
			err := s.statusOf(t.Context(), st, received, func(context.Context) (bool, error) {
				lookups++
				return settled, nil
			}, func(context.Context) (named, error) {
				settles++
				settled = c.named == namedSettled
				return c.named, c.settleErr
			})
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("err %v, want %v", err, c.want)
			}
			if lookups != c.lookups || settles != c.settles || len(store.asked) != c.asked {
				t.Errorf("%d lookups, %d settles, %d sending checks; want %d, %d, %d",
					lookups, settles, len(store.asked), c.lookups, c.settles, c.asked)
			}
		})
	}
}

var errBoom = errors.New("boom")

// A settle that reports success but leaves the wamid unknown is an error
// (the hook is retried), not a silent drop.
func TestStatusOfSettledButStillUnknown(t *testing.T) {
	s := &Service{Store: &sendingStore{}, Clock: func() time.Time { return time.Unix(0, 0) }}
	st := &meta.WhatsAppStatus{ID: "wamid.X", Status: "read", BizOpaqueCallbackData: "msg_1"}
	err := s.statusOf(t.Context(), st, time.Unix(0, 0), func(context.Context) (bool, error) { return false, nil },
		func(context.Context) (named, error) { return namedSettled, nil })
	if err == nil || errors.Is(err, ErrStatusEarly) {
		t.Errorf("err %v, want an error other than ErrStatusEarly", err)
	}
}

// What a status may do to the message its biz_opaque_callback_data names:
// only an outbound live WhatsApp message given up as provider_unknown is
// settled; one sending waits; anything else is left alone.
func TestNamedOf(t *testing.T) {
	unknown := `{"failed_at":"2026-10-15T12:00:00Z","error":{"code":"provider_unknown","message":"x"}}`
	msg := func(status, delivery string, edit ...func(*repo.Message)) *repo.Message {
		m := &repo.Message{ID: "msg_1", Livemode: true, Channel: "whatsapp", Direction: "outbound", Status: status}
		if delivery != "" {
			m.Delivery = repo.JSONB(delivery)
		}
		for _, e := range edit {
			e(m)
		}
		return m
	}
	for _, c := range []struct {
		name string
		m    *repo.Message
		want named
	}{
		{"none", nil, namedNothing},
		{"provider_unknown", msg("failed", unknown), namedSettled},
		{"sending", msg("sending", ""), namedSending},
		{"failed by Meta", msg("failed", `{"error":{"code":"provider_error","message":"x"}}`), namedNothing},
		{"failed without delivery", msg("failed", ""), namedNothing},
		{"sent", msg("sent", `{"provider_message_id":"wamid.A"}`), namedNothing},
		{"delivered", msg("delivered", `{"provider_message_id":"wamid.A"}`), namedNothing},
		{"provider_unknown with a wamid", msg("failed", `{"provider_message_id":"wamid.A","error":{"code":"provider_unknown","message":"x"}}`), namedNothing},
		{"inbound", msg("failed", unknown, func(m *repo.Message) { m.Direction = "inbound" }), namedNothing},
		{"sandbox", msg("failed", unknown, func(m *repo.Message) { m.Livemode = false }), namedNothing},
		{"instagram", msg("failed", unknown, func(m *repo.Message) { m.Channel = "instagram" }), namedNothing},
		{"broken delivery", msg("failed", `{`), namedNothing},
	} {
		if got := namedOf(c.m); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
