package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Every list of a rich send takes at least one item (invalid_request) and
// at most its provider's number (422 limit_exceeded naming the field).
func TestRichListCounts(t *testing.T) {
	s := func(v string) *string { return &v }
	interactive := func(ch string, it *model.InteractiveInput) *sendRequest {
		return &sendRequest{channel: ch, text: s("Pick"), in: model.SendMessageInput{Interactive: it}}
	}
	generic := func(it *model.InteractiveInput) *sendRequest {
		it.Type = s("generic")
		return &sendRequest{channel: "instagram", in: model.SendMessageInput{Interactive: it}}
	}
	buttons := make([]*model.ButtonInput, 4)
	quick := make([]*model.QuickReplyInput, 14)
	cards := make([]*model.ElementInput, 11)
	contacts := make([]*model.ContactCardInput, 6)
	tests := []struct {
		name string
		req  *sendRequest
		code apierr.Code
		msg  string
	}{
		{"no buttons", interactive("whatsapp", &model.InteractiveInput{Type: s("buttons")}),
			apierr.InvalidRequest, "interactive.buttons needs at least one button."},
		{"4 buttons", interactive("whatsapp", &model.InteractiveInput{Type: s("buttons"), Buttons: buttons}),
			apierr.LimitExceeded, "interactive.buttons: WhatsApp takes at most 3 reply buttons; this has 4."},
		{"no quick replies", interactive("instagram", &model.InteractiveInput{Type: s("quick_replies")}),
			apierr.InvalidRequest, "interactive.quick_replies needs at least one."},
		{"14 quick replies", interactive("instagram", &model.InteractiveInput{Type: s("quick_replies"), QuickReplies: quick}),
			apierr.LimitExceeded, "interactive.quick_replies: Instagram takes at most 13 quick replies; this has 14."},
		{"no cards", generic(&model.InteractiveInput{}),
			apierr.InvalidRequest, "interactive.elements needs at least one card."},
		{"11 cards", generic(&model.InteractiveInput{Elements: cards}),
			apierr.LimitExceeded, "interactive.elements: Instagram takes at most 10 cards; this has 11."},
		{"no contacts", &sendRequest{channel: "whatsapp", in: model.SendMessageInput{Contacts: []*model.ContactCardInput{}}},
			apierr.InvalidRequest, "contacts needs at least one card."},
		{"6 contacts", &sendRequest{channel: "whatsapp", in: model.SendMessageInput{Contacts: contacts}},
			apierr.LimitExceeded, "contacts: WhatsApp takes at most 5 contact cards; this has 6."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := richFit(tt.req, nil)
			if e, ok := apierr.As(err); !ok || e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("got %v, want %s %q", err, tt.code, tt.msg)
			}
		})
	}
}
