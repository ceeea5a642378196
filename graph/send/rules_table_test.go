package send

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

var rulesNow = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *time.Time { t := rulesNow.Add(-d); return &t }

// request is a send on a channel as sendFields leaves it.
func request(t *testing.T, channel string, in model.SendMessageInput) *sendRequest {
	t.Helper()
	req := &sendRequest{in: in, channel: channel, text: nonBlank(in.Text), html: nonBlank(in.HTML)}
	if in.ReplyAs != nil {
		req.replyAs = *in.ReplyAs
	}
	if err := req.attachments(); err != nil {
		t.Fatalf("attachments: %v", err)
	}
	return req
}

func inlineFile(name string, content []byte) *model.AttachmentInput {
	b64 := base64.StdEncoding.EncodeToString(content)
	return &model.AttachmentInput{Filename: &name, ContentBase64: &b64}
}

// The channel rules that read nothing from the database (WhatsApp,
// Instagram direct messages and website chats without a template or an
// uploaded file), in their order: the first failing rule answers.
func TestChannelRulesWithoutLookups(t *testing.T) {
	day := 24 * time.Hour
	connected := &repo.Account{ID: "wa_1", Channel: "whatsapp", Status: "connected"}
	phone := "+15550101234"
	customer := &repo.Contact{ID: "ct_1", Phone: &phone}
	optedOut := &repo.Contact{ID: "ct_2", Phone: &phone, OptOutWhatsapp: true, OptOutInstagram: true}
	conv := func(channel string, edit func(c *repo.Conversation)) *repo.Conversation {
		c := &repo.Conversation{ID: "conv_1", Channel: channel, Status: "open", IntegrationReplies: true}
		if edit != nil {
			edit(c)
		}
		return c
	}
	paused := func(c *repo.Conversation) { c.IntegrationReplies = false }
	closed := func(c *repo.Conversation) { c.Status = "closed" }
	text := model.SendMessageInput{Text: str("x")}
	tagged := func(tag string) model.SendMessageInput { return model.SendMessageInput{Text: str("x"), Tag: &tag} }
	pdf := append([]byte("%PDF-1.4\n"), make([]byte, 64)...)
	withFiles := func(files ...*model.AttachmentInput) model.SendMessageInput {
		return model.SendMessageInput{Attachments: files}
	}
	agent := &Sender{Type: "agent"}
	for _, c := range []struct {
		rule    string
		channel string
		in      model.SendMessageInput
		sender  *Sender
		target  sendTarget
		code    apierr.Code
		msg     string
		tagged  bool
	}{
		{rule: "integration paused", channel: "whatsapp", in: text,
			target: sendTarget{conv: conv("whatsapp", paused), acc: connected, lastInbound: ago(time.Hour)},
			code:   apierr.IntegrationPaused, msg: "An agent paused integration replies on conversation conv_1"},
		{rule: "a paused integration does not stop an agent", channel: "whatsapp", in: text, sender: agent,
			target: sendTarget{conv: conv("whatsapp", paused), acc: connected, lastInbound: ago(time.Hour)}},
		{rule: "pause before closed", channel: "website", in: text, target: sendTarget{conv: conv("website", func(c *repo.Conversation) { paused(c); closed(c) })},
			code: apierr.IntegrationPaused, msg: "An agent paused integration replies"},
		{rule: "closed website chat", channel: "website", in: text, target: sendTarget{conv: conv("website", closed)},
			code: apierr.ConversationClosed, msg: "Website chat conv_1 is closed"},
		{rule: "open website chat, any time", channel: "website", in: text, target: sendTarget{conv: conv("website", nil), lastInbound: ago(30 * day)}},
		{rule: "no WhatsApp number", channel: "whatsapp", in: text, target: sendTarget{lastInbound: ago(time.Hour)},
			code: apierr.NoWhatsappAccount, msg: "This key reaches no connected WhatsApp number."},
		{rule: "a disconnected WhatsApp number", channel: "whatsapp", in: text,
			target: sendTarget{acc: &repo.Account{ID: "wa_1", Status: "disconnected"}, lastInbound: ago(time.Hour)},
			code:   apierr.NoWhatsappAccount, msg: "This key reaches no connected WhatsApp number."},
		{rule: "a number needing reauth passes (the live rules answer)", channel: "whatsapp", in: text,
			target: sendTarget{acc: &repo.Account{ID: "wa_1", Status: "needs_reauth"}, lastInbound: ago(time.Hour)}},
		{rule: "number before tag", channel: "whatsapp", in: tagged("promo"), target: sendTarget{},
			code: apierr.NoWhatsappAccount, msg: "no connected WhatsApp number"},
		{rule: "tag other than human_agent", channel: "instagram", in: tagged("promo"), target: sendTarget{lastInbound: ago(time.Hour)},
			code: apierr.InvalidRequest, msg: "tag must be human_agent"},
		{rule: "tag on WhatsApp", channel: "whatsapp", in: tagged("human_agent"), target: sendTarget{acc: connected, lastInbound: ago(time.Hour)},
			code: apierr.InvalidRequest, msg: "tag human_agent applies to Instagram direct messages only."},
		{rule: "tag before window", channel: "instagram", in: tagged("promo"), target: sendTarget{lastInbound: ago(30 * day)},
			code: apierr.InvalidRequest, msg: "tag must be human_agent"},
		{rule: "WhatsApp, 23 hours", channel: "whatsapp", in: text, target: sendTarget{acc: connected, lastInbound: ago(23 * time.Hour)}},
		{rule: "WhatsApp, 24 hours", channel: "whatsapp", in: text, target: sendTarget{acc: connected, lastInbound: ago(day)},
			code: apierr.WindowClosed, msg: "send an approved template instead"},
		{rule: "WhatsApp, never wrote", channel: "whatsapp", in: text, target: sendTarget{acc: connected},
			code: apierr.WindowClosed, msg: "send an approved template instead"},
		{rule: "WhatsApp, an agent's reply is no exception", channel: "whatsapp", in: text, sender: agent,
			target: sendTarget{acc: connected, lastInbound: ago(2 * day)},
			code:   apierr.WindowClosed, msg: "send an approved template instead"},
		{rule: "Instagram DM, 25 hours, automated", channel: "instagram", in: text, target: sendTarget{lastInbound: ago(25 * time.Hour)},
			code: apierr.WindowClosed, msg: "only a person's reply"},
		{rule: "Instagram DM, 25 hours, tagged", channel: "instagram", in: tagged("human_agent"),
			target: sendTarget{lastInbound: ago(25 * time.Hour)}, tagged: true},
		{rule: "Instagram DM, 25 hours, an agent", channel: "instagram", in: text, sender: agent,
			target: sendTarget{lastInbound: ago(25 * time.Hour)}, tagged: true},
		{rule: "Instagram DM, 8 days, tagged", channel: "instagram", in: tagged("human_agent"), target: sendTarget{lastInbound: ago(8 * day)},
			code: apierr.WindowClosed, msg: "Over 7 days since the customer last wrote"},
		{rule: "Instagram DM, within 24 hours, untagged", channel: "instagram", in: text, target: sendTarget{lastInbound: ago(time.Hour)}},
		{rule: "window before opt-out", channel: "whatsapp", in: text, target: sendTarget{acc: connected, contact: optedOut, lastInbound: ago(2 * day)},
			code: apierr.WindowClosed, msg: "Over 24 hours"},
		{rule: "WhatsApp opt-out", channel: "whatsapp", in: text, target: sendTarget{acc: connected, contact: optedOut, lastInbound: ago(time.Hour)},
			code: apierr.RecipientOptedOut, msg: "The customer opted out of whatsapp."},
		{rule: "Instagram opt-out", channel: "instagram", in: text, target: sendTarget{contact: optedOut, lastInbound: ago(time.Hour)},
			code: apierr.RecipientOptedOut, msg: "The customer opted out of instagram."},
		{rule: "opt-out before attachments", channel: "whatsapp", in: withFiles(inlineFile("run.exe", []byte("MZ\x90\x00"))),
			target: sendTarget{acc: connected, contact: optedOut, lastInbound: ago(time.Hour)},
			code:   apierr.RecipientOptedOut, msg: "opted out of whatsapp"},
		{rule: "an executable", channel: "website", in: withFiles(inlineFile("run.exe", []byte("MZ\x90\x00"))), target: sendTarget{conv: conv("website", nil)},
			code: apierr.FileRejected, msg: "run.exe is an executable or script"},
		{rule: "content_type not a media type", channel: "website", target: sendTarget{conv: conv("website", nil)},
			in:   withFiles(&model.AttachmentInput{Filename: str("a.txt"), ContentBase64: str("aGk="), ContentType: str("a b")}),
			code: apierr.FileRejected, msg: `a.txt: content_type "a b" is not a media type.`},
		{rule: "a PDF on Instagram", channel: "instagram", in: withFiles(inlineFile("a.pdf", pdf)), target: sendTarget{contact: customer, lastInbound: ago(time.Hour)},
			code: apierr.UnsupportedAttachment, msg: "Instagram takes images, video and audio only, not application/pdf."},
		{rule: "a PDF on WhatsApp", channel: "whatsapp", in: withFiles(inlineFile("a.pdf", pdf)), target: sendTarget{acc: connected, contact: customer, lastInbound: ago(time.Hour)}},
		{rule: "attachments over 10 MB together", channel: "website", target: sendTarget{conv: conv("website", nil)},
			in:   withFiles(inlineFile("a.txt", []byte(strings.Repeat("a", 6<<20))), inlineFile("b.txt", []byte(strings.Repeat("b", 5<<20)))),
			code: apierr.AttachmentsTooLarge, msg: "The attachments add up to 11534336 bytes; a message takes at most 10 MB."},
		{rule: "attachments of 10 MB together", channel: "website", target: sendTarget{conv: conv("website", nil)},
			in: withFiles(inlineFile("a.txt", []byte(strings.Repeat("a", 5<<20))), inlineFile("b.txt", []byte(strings.Repeat("b", 5<<20))))},
	} {
		t.Run(c.rule, func(t *testing.T) {
			req := request(t, c.channel, c.in)
			req.sender = c.sender
			svc := &Service{Clock: func() time.Time { return rulesNow }}
			// An empty Queries: these rules must not need the database (a read
			// would panic).
			_, err := svc.channelRules(context.Background(), repo.Queries{}, &auth.Actor{WorkspaceID: "ws_1"}, req, &c.target, "msg_1")
			apierrtest.Want(t, err, c.code, c.msg)
			if req.humanAgentTag != c.tagged {
				t.Errorf("HUMAN_AGENT tag: got %v, want %v", req.humanAgentTag, c.tagged)
			}
		})
	}
}

// Who may not be written to: suppressed and unsubscribed addresses,
// opt-outs per channel, and an email conversation without an address.
// The WhatsApp marketing opt-out has its own table (TestMarketingOptOutRule).
func TestRecipientRules(t *testing.T) {
	addr, phone := "kim@example.com", "+15550101234"
	bounced := repo.JSONB(`{"reason": "hard_bounce"}`)
	for _, c := range []struct {
		rule    string
		channel string
		contact *repo.Contact
		reply   bool
		code    apierr.Code
		msg     string
	}{
		{"suppressed address", "email", &repo.Contact{Email: &addr, EmailSuppressed: bounced}, true,
			apierr.RecipientSuppressed, "kim@example.com bounced permanently or reported spam"},
		{"suppression null is none", "email", &repo.Contact{Email: &addr, EmailSuppressed: repo.JSONB("null")}, false, "", ""},
		{"suppressed before unsubscribed", "email", &repo.Contact{Email: &addr, EmailSuppressed: bounced, OptOutEmail: true}, false,
			apierr.RecipientSuppressed, "bounced permanently"},
		{"unsubscribed, new thread", "email", &repo.Contact{Email: &addr, OptOutEmail: true}, false,
			apierr.RecipientUnsubscribed, "kim@example.com unsubscribed; replies are allowed, new threads are not."},
		{"unsubscribed, reply", "email", &repo.Contact{Email: &addr, OptOutEmail: true}, true, "", ""},
		{"no contact", "email", nil, true, apierr.NoRecipient, "This email conversation has no customer address."},
		{"a contact without an address", "email", &repo.Contact{Phone: &phone}, true, apierr.NoRecipient, "has no customer address"},
		{"WhatsApp opt-out, reply", "whatsapp", &repo.Contact{Phone: &phone, OptOutWhatsapp: true}, true,
			apierr.RecipientOptedOut, "The customer opted out of whatsapp."},
		{"WhatsApp opt-out, new conversation", "whatsapp", &repo.Contact{Phone: &phone, OptOutWhatsapp: true}, false,
			apierr.RecipientOptedOut, "The customer opted out of whatsapp."},
		{"Instagram opt-out", "instagram", &repo.Contact{OptOutInstagram: true}, true,
			apierr.RecipientOptedOut, "The customer opted out of instagram."},
		{"email opt-out leaves WhatsApp", "whatsapp", &repo.Contact{Phone: &phone, OptOutEmail: true}, true, "", ""},
		{"WhatsApp opt-out leaves email replies", "email", &repo.Contact{Email: &addr, OptOutWhatsapp: true, OptOutInstagram: true}, false, "", ""},
		{"WhatsApp opt-out leaves Instagram", "instagram", &repo.Contact{OptOutWhatsapp: true}, true, "", ""},
		{"website chats have no opt-out", "website", &repo.Contact{OptOutWhatsapp: true, OptOutEmail: true, OptOutInstagram: true}, true, "", ""},
	} {
		t.Run(c.rule, func(t *testing.T) {
			target := &sendTarget{contact: c.contact}
			if c.reply {
				target.conv = &repo.Conversation{ID: "conv_1", Channel: c.channel}
			}
			err := recipientRules(&sendRequest{channel: c.channel}, target, &sendContent{})
			apierrtest.Want(t, err, c.code, c.msg)
		})
	}
}

// A reply's fields are checked against its conversation once it is read:
// its channel, its WhatsApp number, and whether it is a comment thread.
func TestFieldsFitAReply(t *testing.T) {
	wa := &repo.Conversation{ID: "conv_1", Channel: "whatsapp", AccountID: "wa_1"}
	dm := &repo.Conversation{ID: "conv_2", Channel: "instagram"}
	comment := &repo.Conversation{ID: "conv_3", Channel: "instagram", IsComment: true}
	mail := &repo.Conversation{ID: "conv_4", Channel: "email"}
	lat := 48.85
	for _, c := range []struct {
		rule string
		conv *repo.Conversation
		in   model.SendMessageInput
		code apierr.Code
		msg  string
	}{
		{"another WhatsApp number", wa, model.SendMessageInput{Text: str("x"), WhatsappAccountID: str("wa_2")},
			apierr.InvalidRequest, "Conversation conv_1 is on WhatsApp number wa_1, not wa_2."},
		{"its own WhatsApp number", wa, model.SendMessageInput{Text: str("x"), WhatsappAccountID: str("wa_1")}, "", ""},
		{"html on a WhatsApp reply", wa, model.SendMessageInput{HTML: str("<p>x</p>")},
			apierr.InvalidRequest, "html applies to email messages only, not whatsapp."},
		{"html on an email reply", mail, model.SendMessageInput{HTML: str("<p>x</p>"), Cc: []string{"a@example.com"}}, "", ""},
		{"template on an Instagram reply", dm, model.SendMessageInput{Template: &model.TemplateInput{Name: str("t"), Language: str("en")}},
			apierr.InvalidRequest, "template applies to whatsapp messages only, not instagram."},
		{"reply_as on a DM", dm, model.SendMessageInput{Text: str("x"), ReplyAs: str("dm")},
			apierr.InvalidRequest, "reply_as applies to replies in Instagram comment conversations only."},
		{"reply_as on a comment", comment, model.SendMessageInput{Text: str("x"), ReplyAs: str("comment")}, "", ""},
		{"a reaction on a reply", wa, model.SendMessageInput{Reaction: &model.ReactionInput{MessageID: str("msg_1"), Emoji: str("👍")}}, "", ""},
		{"a reaction with text", wa, model.SendMessageInput{Text: str("x"), Reaction: &model.ReactionInput{MessageID: str("msg_1"), Emoji: str("👍")}},
			apierr.InvalidRequest, "A reaction is a message of its own"},
		{"an Instagram reaction other than the heart", dm, model.SendMessageInput{Reaction: &model.ReactionInput{MessageID: str("msg_1"), Emoji: str("👍")}},
			apierr.LimitExceeded, "reaction.emoji: Instagram reactions are the heart (❤️) only."},
		{"a location without longitude", wa, model.SendMessageInput{Location: &model.LocationInput{Latitude: &lat}},
			apierr.InvalidRequest, "location needs latitude and longitude."},
		{"reply_to without message_id", wa, model.SendMessageInput{Text: str("x"), ReplyTo: &model.ReplyToInput{}},
			apierr.InvalidRequest, "reply_to needs message_id."},
	} {
		t.Run(c.rule, func(t *testing.T) {
			req := &sendRequest{in: c.in, channel: c.conv.Channel, text: nonBlank(c.in.Text), html: nonBlank(c.in.HTML)}
			apierrtest.Want(t, fieldsFit(req, c.conv), c.code, c.msg)
		})
	}
}
