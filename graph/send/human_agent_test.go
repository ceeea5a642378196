package send

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
)

// humanAgentRule: outside the 24-hour window a person's Instagram reply is
// tagged HUMAN_AGENT until 7 days after the customer's last message; an
// automated one (an unmarked API send, the AI) is window_closed.
func TestHumanAgentRule(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	tag := "human_agent"
	ago := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	day := 24 * time.Hour
	cases := []struct {
		name   string
		req    sendRequest
		last   *time.Time
		tagged bool
	}{
		{"api tagged, 2 days", sendRequest{in: model.SendMessageInput{Tag: &tag}}, ago(2 * day), true},
		{"agent, 6 days 23 h", sendRequest{sender: &Sender{Type: "agent"}}, ago(7*day - time.Hour), true},
		{"api untagged, 2 days", sendRequest{}, ago(2 * day), false},
		{"ai, 2 days", sendRequest{sender: &Sender{Type: "ai"}}, ago(2 * day), false},
		{"agent, 7 days", sendRequest{sender: &Sender{Type: "agent"}}, ago(7 * day), false},
		{"agent, never wrote", sendRequest{sender: &Sender{Type: "agent"}}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := humanAgentRule(&c.req, c.last, now)
			want := apierr.WindowClosed
			if c.tagged {
				want = ""
			}
			apierrtest.Want(t, err, want, "")
			if c.req.humanAgentTag != c.tagged {
				t.Errorf("humanAgentTag: got %v, want %v", c.req.humanAgentTag, c.tagged)
			}
		})
	}
}
