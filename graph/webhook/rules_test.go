package webhook

import (
	"context"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/internal/egress"
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
		{"contact event reaches a channel-limited endpoint", endpoint(func(e *repo.WebhookEndpoint) {
			e.Channels = []string{"email"}
		}), contactEvent, true},
		// Contacts belong to every website: an endpoint limited to some
		// websites, as a website-limited key makes, gets none of them.
		{"contact event skips a website-limited endpoint", endpoint(func(e *repo.WebhookEndpoint) {
			e.Channels, e.WebsiteIDs = []string{"email"}, []string{"web_2"}
		}), contactEvent, false},
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

func TestProblemNamesWhoFailedAndHidesTheResolver(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "hooks.example.invalid", Server: "10.0.0.53:53", IsNotFound: true}
	slow := &net.DNSError{Err: "i/o timeout", Name: "hooks.example.com", Server: "10.0.0.53:53", IsTimeout: true}
	tests := []struct {
		a    answer
		want string
	}{
		{answer{Status: 500}, "the endpoint answered HTTP 500"},
		{answer{Status: 302}, "the endpoint answered HTTP 302; redirects are not followed"},
		{answer{Err: &url.Error{Op: "Post", URL: "https://hooks.example.invalid/", Err: dns}}, "the host hooks.example.invalid could not be resolved: no such host"},
		{answer{Err: dns}, "the host hooks.example.invalid could not be resolved: no such host"},
		{answer{Err: slow}, "the host hooks.example.com could not be resolved: the DNS lookup timed out"},
		{answer{Err: &egress.Error{Kind: egress.Address, Host: "10.1.2.3", Shown: "10.1.2.3", Why: "a private address"}},
			"msgsvc refused to connect to 10.1.2.3: a private address, " +
				"which webhooks may not reach (MSGSVC_WEBHOOK_ALLOW_INSECURE=true lifts this for local development)"},
		{answer{Err: &url.Error{Op: "Post", URL: "https://hooks.example.com/", Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 443}, Err: &egress.Error{Kind: egress.Address, Host: "hooks.example.com", Why: "a private address"}}}},
			"msgsvc refused to connect to hooks.example.com: it resolves to a private address, " +
				"which webhooks may not reach (MSGSVC_WEBHOOK_ALLOW_INSECURE=true lifts this for local development)"},
		{answer{Err: &url.Error{Op: "Post", URL: "https://hooks.example.com/", Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 443}, Err: syscall.ECONNREFUSED}}},
			"the endpoint could not be reached: connection refused"},
		{answer{Err: context.DeadlineExceeded}, "the endpoint gave no answer within 10s"},
	}
	for _, tt := range tests {
		got := tt.a.Problem(10 * time.Second)
		if got != tt.want {
			t.Errorf("Problem(%v) = %q, want %q", tt.a.Err, got, tt.want)
		}
		if strings.Contains(got, "10.0.0.53") || strings.Contains(got, "10.0.0.7") {
			t.Errorf("Problem(%v) shows the resolver: %q", tt.a.Err, got)
		}
	}
}

func TestWithinKeyRestrictions(t *testing.T) {
	ep := func(channels, websites []string) *repo.WebhookEndpoint {
		return &repo.WebhookEndpoint{Channels: channels, WebsiteIDs: websites}
	}
	wa := &auth.Actor{Channels: []string{"whatsapp"}}
	web := &auth.Actor{WebsiteIDs: []string{"web_main"}}
	tests := []struct {
		name string
		a    *auth.Actor
		e    *repo.WebhookEndpoint
		want bool
	}{
		{"unrestricted key, any endpoint", &auth.Actor{}, ep(nil, nil), true},
		{"channel key, all channels", wa, ep(nil, nil), false},
		{"channel key, its channel", wa, ep([]string{"whatsapp"}, nil), true},
		{"channel key, its channel and another", wa, ep([]string{"whatsapp", "email"}, nil), false},
		{"channel key, another channel", wa, ep([]string{"email"}, nil), false},
		{"website key, all websites", web, ep(nil, nil), false},
		{"website key, its website", web, ep(nil, []string{"web_main"}), true},
		{"website key, its website and another", web, ep(nil, []string{"web_main", "web_second"}), false},
		{"website key, its website, any channel", web, ep([]string{"email"}, []string{"web_main"}), true},
	}
	for _, tt := range tests {
		if got := within(tt.a, tt.e); got != tt.want {
			t.Errorf("%s: within = %v, want %v", tt.name, got, tt.want)
		}
	}
}
