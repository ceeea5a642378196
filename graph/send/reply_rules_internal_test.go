package send

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// TestWindowRuleForAReply: the rule replyRules and the send share, for an
// agent's plain reply and an API send.
func TestWindowRuleForAReply(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { at := now.Add(-d); return &at }
	agent := &Sender{Type: "agent"}
	tpl := model.SendMessageInput{Template: &model.TemplateInput{}}
	for _, tt := range []struct {
		name    string
		channel string
		sender  *Sender
		in      model.SendMessageInput
		comment bool
		last    *time.Time
		want    apierr.Code
	}{
		{"whatsapp inside", "whatsapp", agent, model.SendMessageInput{}, false, ago(time.Hour), ""},
		{"whatsapp outside", "whatsapp", agent, model.SendMessageInput{}, false, ago(25 * time.Hour), apierr.WindowClosed},
		{"whatsapp template outside", "whatsapp", agent, tpl, false, ago(25 * time.Hour), ""},
		{"whatsapp never wrote", "whatsapp", agent, model.SendMessageInput{}, false, nil, apierr.WindowClosed},
		{"instagram agent at 3 days", "instagram", agent, model.SendMessageInput{}, false, ago(72 * time.Hour), ""},
		{"instagram api at 3 days", "instagram", nil, model.SendMessageInput{}, false, ago(72 * time.Hour), apierr.WindowClosed},
		{"instagram agent at 8 days", "instagram", agent, model.SendMessageInput{}, false, ago(8 * 24 * time.Hour), apierr.WindowClosed},
		{"instagram comment at 8 days", "instagram", agent, model.SendMessageInput{}, true, ago(8 * 24 * time.Hour), ""},
		{"email", "email", agent, model.SendMessageInput{}, false, nil, ""},
	} {
		req := &sendRequest{channel: tt.channel, sender: tt.sender, in: tt.in}
		err := windowRule(req, tt.comment, tt.last, now)
		if got := errCode(err); got != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	closed := &sendTarget{conv: &repo.Conversation{ID: "c", Status: "closed"}}
	if errCode(closedChatRule(&sendRequest{channel: "website"}, closed)) != apierr.ConversationClosed ||
		closedChatRule(&sendRequest{channel: "email"}, closed) != nil {
		t.Error("closedChatRule")
	}
	if got := replySubject(&repo.Conversation{Subject: strPtr("Re: Order")}); got != "Re: Order" {
		t.Errorf("replySubject = %q", got)
	}
}

func errCode(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func strPtr(s string) *string { return &s }
