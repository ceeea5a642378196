package send

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// TestSandboxDueAtSentPlusDelay: on the injected clock, a message sent at t
// is due from t + delay on, and not a millisecond before.
func TestSandboxDueAtSentPlusDelay(t *testing.T) {
	sent := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		delay time.Duration
		after time.Duration
		due   bool
	}{
		{"just sent", 2 * time.Second, 0, false},
		{"a millisecond early", 2 * time.Second, 2*time.Second - time.Millisecond, false},
		{"at sent + delay", 2 * time.Second, 2 * time.Second, true},
		{"later", 2 * time.Second, time.Minute, true},
		{"no delay, at once", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := clock.Clock(func() time.Time { return sent.Add(tc.after) }).Now()
			if due := !sent.After(sandboxDueBy(now, tc.delay)); due != tc.due {
				t.Errorf("sent at %v, delay %v, at %v: due %v, want %v", sent, tc.delay, now, due, tc.due)
			}
		})
	}
}

// TestSettleSandbox: a sent sandbox message becomes delivered at the time
// given, or failed with simulated_failure when its text or raw HTML says
// simulate:failed; sent_at is kept.
func TestSettleSandbox(t *testing.T) {
	at := time.Date(2026, 10, 15, 12, 0, 2, 0, time.UTC)
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name, status string
		text, html   *string
	}{
		{"plain", "delivered", str("hello"), nil},
		{"no text", "delivered", nil, nil},
		{"text", "failed", str("please simulate:failed now"), nil},
		{"raw HTML", "failed", nil, str("<p>simulate:failed</p>")},
		{"another word", "delivered", str("simulate:fail"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &repo.Message{Status: "sent", Text: tc.text, HTMLRaw: tc.html,
				Delivery: repo.JSONB(`{"sent_at": "2026-10-15T12:00:00.000Z"}`)}
			if err := settleSandbox(m, at); err != nil {
				t.Fatal(err)
			}
			var d model.Delivery
			if err := json.Unmarshal(m.Delivery, &d); err != nil {
				t.Fatal(err)
			}
			sentAt := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
			switch {
			case m.Status != tc.status:
				t.Errorf("status %s, want %s", m.Status, tc.status)
			case d.SentAt == nil || !d.SentAt.Equal(sentAt):
				t.Errorf("sent_at %v, want kept", d.SentAt)
			case tc.status == "delivered" && (d.DeliveredAt == nil || !d.DeliveredAt.Equal(at) || d.FailedAt != nil || d.Error != nil):
				t.Errorf("delivered: %s", m.Delivery)
			case tc.status == "failed" && (d.FailedAt == nil || !d.FailedAt.Equal(at) || d.DeliveredAt != nil ||
				d.Error == nil || d.Error.Code != "simulated_failure"):
				t.Errorf("failed: %s", m.Delivery)
			}
		})
	}
}
