package send

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

func TestWindow(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	tests := []struct {
		name        string
		channel     string
		open        bool
		comment     bool
		lastInbound *time.Time
		wantOpen    bool
		wantTpl     bool
	}{
		{"whatsapp, never wrote", "whatsapp", true, false, nil, false, true},
		{"whatsapp, an hour ago", "whatsapp", true, false, ago(time.Hour), true, false},
		{"whatsapp, a millisecond inside", "whatsapp", true, false, ago(24*time.Hour - time.Millisecond), true, false},
		{"whatsapp, exactly 24 hours", "whatsapp", true, false, ago(24 * time.Hour), false, true},
		{"whatsapp, 25 hours", "whatsapp", true, false, ago(25 * time.Hour), false, true},
		{"instagram dm, 25 hours", "instagram", true, false, ago(25 * time.Hour), false, false},
		{"instagram comment, 25 hours", "instagram", true, true, ago(25 * time.Hour), true, false},
		{"website, open", "website", true, false, nil, true, false},
		{"website, closed", "website", false, false, ago(time.Minute), false, false},
		{"email, never wrote", "email", true, false, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := windowOf(tt.channel, tt.open, tt.comment, tt.lastInbound, now)
			if w.Open != tt.wantOpen || w.TemplateRequired != tt.wantTpl {
				t.Errorf("open, template_required = %v, %v; want %v, %v", w.Open, w.TemplateRequired, tt.wantOpen, tt.wantTpl)
			}
			if got, want := windowOpen(tt.lastInbound, now), tt.lastInbound != nil && now.Sub(*tt.lastInbound) < 24*time.Hour; got != want {
				t.Errorf("windowOpen = %v, want %v", got, want)
			}
		})
	}
}

func TestPrivateReplyAllowed(t *testing.T) {
	comment := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	week := 7 * 24 * time.Hour
	tests := []struct {
		name string
		now  time.Time
		used bool
		want apierr.Code
	}{
		{"at once", comment, false, ""},
		{"a second before 7 days", comment.Add(week - time.Second), false, ""},
		{"exactly 7 days", comment.Add(week), false, apierr.PrivateReplyExpired},
		{"8 days", comment.Add(week + 24*time.Hour), false, apierr.PrivateReplyExpired},
		{"already replied", comment.Add(time.Hour), true, apierr.PrivateReplyUsed},
		{"already replied and expired", comment.Add(week), true, apierr.PrivateReplyExpired},
	}
	for _, tt := range tests {
		err := privateReplyAllowed(comment, tt.now, tt.used)
		var got apierr.Code
		if e, ok := err.(*apierr.Error); ok {
			got = e.Code
		} else if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
