package webhook

import (
	"net/netip"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

func TestMatches(t *testing.T) {
	at := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	before, after := at.Add(-time.Hour), at.Add(time.Hour)
	whatsapp, web1 := "whatsapp", "web_1"
	endpoint := func(change func(*repo.WebhookEndpoint)) *repo.WebhookEndpoint {
		e := &repo.WebhookEndpoint{Enabled: true, VerifiedAt: &before, Events: []string{"*"}, TestEvents: true}
		if change != nil {
			change(e)
		}
		return e
	}
	live := &repo.Event{Type: "message.sent", Livemode: true, Channel: &whatsapp, WebsiteID: &web1, CreatedAt: at}
	sandbox := &repo.Event{Type: "message.sent", Livemode: false, Channel: &whatsapp, WebsiteID: &web1, CreatedAt: at}
	contactEvent := &repo.Event{Type: "contact.created", Livemode: true, CreatedAt: at}
	tests := []struct {
		name string
		e    *repo.WebhookEndpoint
		ev   *repo.Event
		want bool
	}{
		{"everything", endpoint(nil), live, true},
		{"disabled", endpoint(func(e *repo.WebhookEndpoint) { e.Enabled = false }), live, false},
		{"deleted", endpoint(func(e *repo.WebhookEndpoint) { e.DeletedAt = &before }), live, false},
		{"unverified", endpoint(func(e *repo.WebhookEndpoint) { e.VerifiedAt = nil }), live, false},
		{"verified after the event", endpoint(func(e *repo.WebhookEndpoint) { e.VerifiedAt = &after }), live, false},
		{"verified at the event", endpoint(func(e *repo.WebhookEndpoint) { e.VerifiedAt = &at }), live, true},
		{"sandbox event, no test events", endpoint(func(e *repo.WebhookEndpoint) { e.TestEvents = false }), sandbox, false},
		{"sandbox event, test events", endpoint(nil), sandbox, true},
		{"other type", endpoint(func(e *repo.WebhookEndpoint) { e.Events = []string{"message.received"} }), live, false},
		{"named type", endpoint(func(e *repo.WebhookEndpoint) { e.Events = []string{"message.sent"} }), live, true},
		{"other channel", endpoint(func(e *repo.WebhookEndpoint) { e.Channels = []string{"email"} }), live, false},
		{"its channel", endpoint(func(e *repo.WebhookEndpoint) { e.Channels = []string{"whatsapp"} }), live, true},
		{"other website", endpoint(func(e *repo.WebhookEndpoint) { e.WebsiteIDs = []string{"web_2"} }), live, false},
		{"contact event reaches a limited endpoint", endpoint(func(e *repo.WebhookEndpoint) {
			e.Channels, e.WebsiteIDs = []string{"email"}, []string{"web_2"}
		}), contactEvent, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Matches(tt.e, tt.ev); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	custom := &Config{RetrySchedule: []time.Duration{time.Second, 2 * time.Second}}
	tests := []struct {
		name     string
		c        *Config
		attempts int
		want     time.Duration
	}{
		{"first failure", &Config{}, 1, time.Minute},
		{"second", &Config{}, 2, 5 * time.Minute},
		{"sixth", &Config{}, 6, 12 * time.Hour},
		{"past the schedule repeats the last", &Config{}, 40, 12 * time.Hour},
		{"zero attempts counts as the first", &Config{}, 0, time.Minute},
		{"custom", custom, 1, time.Second},
		{"custom past its end", custom, 3, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.RetryDelay(tt.attempts); got != tt.want {
				t.Errorf("RetryDelay(%d) = %s, want %s", tt.attempts, got, tt.want)
			}
		})
	}
}

func TestEgressRefusal(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"93.184.216.34", ""},
		{"2606:2800:220:1:248:1893:25c8:1946", ""},
		{"127.0.0.1", "a loopback address"},
		{"::1", "a loopback address"},
		{"::ffff:127.0.0.1", "a loopback address"},
		{"10.1.2.3", "a private address"},
		{"172.16.0.1", "a private address"},
		{"192.168.1.1", "a private address"},
		{"fd00::1", "a private address"},
		{"169.254.169.254", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"0.0.0.0", "not a unicast address"},
		{"224.0.0.1", "a link-local address"},
		{"239.1.2.3", "not a unicast address"},
		{"100.64.0.1", "a reserved address"},
		{"198.18.0.1", "a reserved address"},
		{"240.0.0.1", "a reserved address"},
		{"64:ff9b::7f00:1", "a reserved address"},
		{"2002:7f00:1::", "a reserved address"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := refusal(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("refusal(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}
