package send

import (
	"context"
	"slices"
	"testing"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

// The key's length, then which WhatsApp number: the last field rules, and
// the order of all of them.
func TestSendFieldsKeyNumbersAndOrder(t *testing.T) {
	wa, email := str("whatsapp"), str("email")
	conv, to, x := str("conv_1"), str("+15550101234"), str("x")
	two := []repo.Account{{ID: "wa_1", Status: "connected"}, {ID: "wa_2", Status: "connected"}}
	oneOfTwo := []repo.Account{{ID: "wa_1", Status: "connected"}, {ID: "wa_2", Status: "disconnected"}}
	numbers := func(want ...string) func(*testing.T, *sendRequest) {
		return func(t *testing.T, req *sendRequest) {
			var got []string
			for _, n := range req.numbers {
				got = append(got, n.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("numbers: got %q, want %q", got, want)
			}
		}
	}
	runFields(t, []fieldsCase{
		{rule: "Idempotency-Key over 255 characters", in: model.SendMessageInput{ConversationID: conv, Text: x}, longKey: 300,
			code: apierr.InvalidIdempotencyKey, msg: "Idempotency-Key is 300 characters; at most 255 are allowed."},
		{rule: "several numbers, none named", in: model.SendMessageInput{Channel: wa, To: to, Text: x}, numbers: two,
			code: apierr.WhatsappAccountRequired, msg: "say which with whatsapp_account_id"},
		{rule: "several numbers, one named", in: model.SendMessageInput{Channel: wa, To: to, Text: x, WhatsappAccountID: str("wa_2")},
			numbers: two, check: numbers("wa_1", "wa_2")},
		{rule: "one connected number of two", in: model.SendMessageInput{Channel: wa, To: to, Text: x}, numbers: oneOfTwo,
			check: numbers("wa_1")},
		{rule: "no number (no_whatsapp_account comes later)", in: model.SendMessageInput{Channel: wa, To: to, Text: x}, check: numbers()},
		{rule: "a reply reads no numbers", in: model.SendMessageInput{ConversationID: conv, Text: x}, numbers: two, check: numbers()},
		// The order: the first failing rule answers.
		{rule: "body shape before the key's length", in: model.SendMessageInput{Text: x}, longKey: 300,
			code: apierr.InvalidRequest, msg: "Give conversation_id to reply"},
		{rule: "channel fields before content", in: model.SendMessageInput{Channel: wa, To: to, Subject: str("s")},
			code: apierr.InvalidRequest, msg: "subject applies to email messages only"},
		{rule: "content before from", in: model.SendMessageInput{Channel: email, To: str("bad")},
			code: apierr.TextRequired, msg: "The message has no content"},
		{rule: "from before subject", in: model.SendMessageInput{Channel: email, To: str("bad"), Text: x},
			code: apierr.FromRequired, msg: "A new email needs from"},
		{rule: "subject before addresses", in: model.SendMessageInput{Channel: email, To: str("bad"), From: str("support@verified.test"), Text: x},
			code: apierr.SubjectRequired, msg: "A new email needs a subject."},
		{rule: "addresses before attachments", in: model.SendMessageInput{Channel: email, To: str("bad"), From: str("support@verified.test"),
			Subject: str("s"), Text: x, Attachments: []*model.AttachmentInput{{}}},
			code: apierr.InvalidEmail, msg: `"bad" is not an email address.`},
		{rule: "attachments before the key's length", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{{Filename: str("a")}}},
			longKey: 300, code: apierr.InvalidAttachment, msg: "attachments[0] needs file_id"},
		{rule: "the key's length before the number", in: model.SendMessageInput{Channel: wa, To: to, Text: x}, numbers: two, longKey: 256,
			code: apierr.InvalidIdempotencyKey, msg: "Idempotency-Key is 256 characters"},
	})
}

// The numbers are read only for a new WhatsApp conversation whose other
// field rules passed: a refused or other send costs no read.
func TestSendFieldsReadNumbersLast(t *testing.T) {
	for _, c := range []struct {
		rule  string
		in    model.SendMessageInput
		reads int
	}{
		{"a new WhatsApp conversation", model.SendMessageInput{Channel: str("whatsapp"), To: str("+15550101234"), Text: str("x")}, 1},
		{"refused before", model.SendMessageInput{Channel: str("whatsapp"), To: str("555"), Text: str("x")}, 0},
		{"a reply", model.SendMessageInput{ConversationID: str("conv_1"), Text: str("x")}, 0},
		{"instagram", model.SendMessageInput{Channel: str("instagram"), To: str("1784"), Text: str("x")}, 0},
	} {
		store := &numbersStore{}
		_, _ = (&Service{Store: store}).sendFields(context.Background(), &auth.Actor{WorkspaceID: "ws_1"}, c.in, false, 0)
		if store.reads != c.reads {
			t.Errorf("%s: Accounts reads: got %d, want %d", c.rule, store.reads, c.reads)
		}
	}
}

// The marketing endpoint takes a template and nothing else; its sends are
// marked marketing for the template and opt-out rules.
func TestSendMarketingFields(t *testing.T) {
	_, err := (&Service{}).SendMarketing(context.Background(), MarketingRequest{Input: model.MarketingMessageInput{To: str("+15550101234")}})
	apierrtest.Want(t, err, apierr.TextRequired, "A marketing message needs a template.")
	req, err := (&Service{Store: &numbersStore{}}).sendFields(context.Background(), &auth.Actor{WorkspaceID: "ws_1"},
		model.SendMessageInput{Channel: str("whatsapp"), To: str("+15550101234"),
			Template: &model.TemplateInput{Name: str("spring_sale"), Language: str("en_US")}}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !req.marketing {
		t.Errorf("marketing: got %v, want true", req.marketing)
	}
}
