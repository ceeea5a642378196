package send

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

// numbersStore is the one read the field rules make: the WhatsApp numbers
// the key reaches. Any other read panics (Store is nil).
type numbersStore struct {
	Store
	numbers []repo.Account
	reads   int
}

func (s *numbersStore) Accounts(_ context.Context, _ repo.Scope, channel string) ([]repo.Account, error) {
	s.reads++
	if channel != "whatsapp" {
		return nil, nil
	}
	return s.numbers, nil
}

func str(v string) *string { return &v }

// fieldsCase is one send checked by sendFields: the rule it shows, the
// request, and the refusal wanted ("" code: accepted, then check looks at
// the normalized request).
type fieldsCase struct {
	rule    string
	in      model.SendMessageInput
	longKey int
	numbers []repo.Account
	code    apierr.Code
	msg     string
	check   func(t *testing.T, req *sendRequest)
}

func runFields(t *testing.T, cases []fieldsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			store := &numbersStore{numbers: c.numbers}
			req, err := (&Service{Store: store}).sendFields(context.Background(), &auth.Actor{WorkspaceID: "ws_1"}, c.in, false, c.longKey)
			apierrtest.Want(t, err, c.code, c.msg)
			if err == nil && c.check != nil {
				c.check(t, req)
			}
		})
	}
}

// The body's shape and the fields each channel takes: invalid_request,
// before any content rule.
func TestSendFieldsShape(t *testing.T) {
	wa, ig, email, web := str("whatsapp"), str("instagram"), str("email"), str("website")
	conv, to, x := str("conv_1"), str("+15550101234"), str("x")
	tpl := &model.TemplateInput{Name: str("order_update"), Language: str("en_US")}
	runFields(t, []fieldsCase{
		{rule: "conversation_id with channel", in: model.SendMessageInput{ConversationID: conv, Channel: wa, Text: x},
			code: apierr.InvalidRequest, msg: "; not both."},
		{rule: "conversation_id with to", in: model.SendMessageInput{ConversationID: conv, To: to, Text: x},
			code: apierr.InvalidRequest, msg: "; not both."},
		{rule: "conversation_id with contact_id", in: model.SendMessageInput{ConversationID: conv, ContactID: str("ct_1"), Text: x},
			code: apierr.InvalidRequest, msg: "; not both."},
		{rule: "blank conversation_id", in: model.SendMessageInput{ConversationID: str(" "), Text: x},
			code: apierr.InvalidRequest, msg: "conversation_id must not be empty."},
		{rule: "no conversation_id or channel", in: model.SendMessageInput{To: to, Text: x},
			code: apierr.InvalidRequest, msg: "Give conversation_id to reply, or channel with to or contact_id to start a conversation."},
		{rule: "unknown channel", in: model.SendMessageInput{Channel: str("sms"), To: to, Text: x},
			code: apierr.InvalidRequest, msg: "channel must be one of whatsapp, instagram, email."},
		{rule: "website chat started", in: model.SendMessageInput{Channel: web, To: str("visitor-1"), Text: x},
			code: apierr.InvalidRequest, msg: "Website chats cannot be started through the API"},
		{rule: "neither to nor contact_id", in: model.SendMessageInput{Channel: wa, Text: x},
			code: apierr.InvalidRequest, msg: "needs to or contact_id (exactly one of them)"},
		{rule: "both to and contact_id", in: model.SendMessageInput{Channel: wa, To: to, ContactID: str("ct_1"), Text: x},
			code: apierr.InvalidRequest, msg: "needs to or contact_id (exactly one of them)"},
		{rule: "reply_as neither comment nor dm", in: model.SendMessageInput{ConversationID: conv, Text: x, ReplyAs: str("story")},
			code: apierr.InvalidRequest, msg: "reply_as must be comment or dm."},
		{rule: "template without language", in: model.SendMessageInput{Channel: wa, To: to, Template: &model.TemplateInput{Name: str("t")}},
			code: apierr.InvalidRequest, msg: "template needs name and language."},
		{rule: "template with a blank name", in: model.SendMessageInput{Channel: wa, To: to, Template: &model.TemplateInput{Name: str(" "), Language: str("en_US")}},
			code: apierr.InvalidRequest, msg: "template needs name and language."},
		{rule: "template on email", in: model.SendMessageInput{Channel: email, To: str("a@example.com"), Template: tpl},
			code: apierr.InvalidRequest, msg: "template applies to whatsapp messages only, not email."},
		{rule: "template with text", in: model.SendMessageInput{Channel: wa, To: to, Template: tpl, Text: x},
			code: apierr.InvalidRequest, msg: "A template message carries no text or attachments of its own"},
		{rule: "template with attachments", in: model.SendMessageInput{Channel: wa, To: to, Template: tpl,
			Attachments: []*model.AttachmentInput{{FileID: str("file_1")}}},
			code: apierr.InvalidRequest, msg: "A template message carries no text or attachments of its own"},
		{rule: "whatsapp_account_id on instagram", in: model.SendMessageInput{Channel: ig, To: str("1784"), Text: x, WhatsappAccountID: str("wa_1")},
			code: apierr.InvalidRequest, msg: "whatsapp_account_id applies to whatsapp messages only, not instagram."},
		{rule: "html on whatsapp", in: model.SendMessageInput{Channel: wa, To: to, HTML: str("<p>x</p>")},
			code: apierr.InvalidRequest, msg: "html applies to email messages only, not whatsapp."},
		{rule: "subject on instagram", in: model.SendMessageInput{Channel: ig, To: str("1784"), Text: x, Subject: str("s")},
			code: apierr.InvalidRequest, msg: "subject applies to email messages only, not instagram."},
		{rule: "from on whatsapp", in: model.SendMessageInput{Channel: wa, To: to, Text: x, From: str("a@example.com")},
			code: apierr.InvalidRequest, msg: "from applies to email messages only, not whatsapp."},
		{rule: "cc on whatsapp", in: model.SendMessageInput{Channel: wa, To: to, Text: x, Cc: []string{}},
			code: apierr.InvalidRequest, msg: "cc applies to email messages only, not whatsapp."},
		{rule: "reply_as on a new conversation", in: model.SendMessageInput{Channel: ig, To: str("1784"), Text: x, ReplyAs: str("dm")},
			code: apierr.InvalidRequest, msg: "reply_as applies to replies in Instagram comment conversations only."},
		{rule: "reaction on a new conversation", in: model.SendMessageInput{Channel: wa, To: to,
			Reaction: &model.ReactionInput{MessageID: str("msg_1"), Emoji: str("👍")}},
			code: apierr.InvalidRequest, msg: "reply_to and reaction name a message of the conversation"},
		{rule: "interactive on email", in: model.SendMessageInput{Channel: email, To: str("a@example.com"), Text: x,
			Interactive: &model.InteractiveInput{Type: str("buttons")}},
			code: apierr.InvalidRequest, msg: "apply to WhatsApp and Instagram messages only, not email."},
		{rule: "location on instagram", in: model.SendMessageInput{Channel: ig, To: str("1784"),
			Location: &model.LocationInput{Latitude: new(float64), Longitude: new(float64)}},
			code: apierr.InvalidRequest, msg: "location applies to WhatsApp messages only, not instagram."},
		{rule: "whatsapp text over 4096 characters", in: model.SendMessageInput{Channel: wa, To: to, Text: str(strings.Repeat("é", 4097))},
			code: apierr.LimitExceeded, msg: "text: WhatsApp takes at most 4096 characters; this has 4097."},
		{rule: "whatsapp text of 4096 characters", in: model.SendMessageInput{Channel: wa, To: to, Text: str(strings.Repeat("é", 4096))}},
		{rule: "instagram text over 1000 bytes", in: model.SendMessageInput{Channel: ig, To: str("1784"), Text: str(strings.Repeat("é", 501))},
			code: apierr.LimitExceeded, msg: "text: Instagram takes at most 1000 bytes of UTF-8; this has 1002."},
		{rule: "instagram text of 1000 bytes", in: model.SendMessageInput{Channel: ig, To: str("1784"), Text: str(strings.Repeat("é", 500))}},
		{rule: "a reply's channel fields wait for its conversation", in: model.SendMessageInput{ConversationID: conv, HTML: str("<p>x</p>"), Subject: str("s")}},
	})
}

// Content, then email's from and subject, then addresses, then
// attachments' form.
func TestSendFieldsContent(t *testing.T) {
	wa, ig, email := str("whatsapp"), str("instagram"), str("email")
	conv, x, addr, from, subj := str("conv_1"), str("x"), str("a@example.com"), str("support@verified.test"), str("Hello")
	inline := func(name, b64 string) *model.AttachmentInput {
		return &model.AttachmentInput{Filename: str(name), ContentBase64: str(b64)}
	}
	runFields(t, []fieldsCase{
		{rule: "no content", in: model.SendMessageInput{ConversationID: conv},
			code: apierr.TextRequired, msg: "The message has no content"},
		{rule: "blank text", in: model.SendMessageInput{ConversationID: conv, Text: str(" \n ")},
			code: apierr.TextRequired, msg: "The message has no content"},
		{rule: "blank html", in: model.SendMessageInput{ConversationID: conv, HTML: str("  ")},
			code: apierr.TextRequired, msg: "The message has no content"},
		{rule: "an empty attachment list", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{}},
			code: apierr.TextRequired, msg: "The message has no content"},
		{rule: "a reaction is content", in: model.SendMessageInput{ConversationID: conv, Reaction: &model.ReactionInput{MessageID: str("msg_1"), Emoji: str("")}}},
		{rule: "a location is content", in: model.SendMessageInput{Channel: wa, To: str("+15550101234"),
			Location: &model.LocationInput{Latitude: new(float64), Longitude: new(float64)}}},
		{rule: "email without from", in: model.SendMessageInput{Channel: email, To: addr, Subject: subj, Text: x},
			code: apierr.FromRequired, msg: "A new email needs from"},
		{rule: "email with a blank from", in: model.SendMessageInput{Channel: email, To: addr, From: str(" "), Subject: subj, Text: x},
			code: apierr.FromRequired, msg: "A new email needs from"},
		{rule: "email without subject", in: model.SendMessageInput{Channel: email, To: addr, From: from, Text: x},
			code: apierr.SubjectRequired, msg: "A new email needs a subject."},
		{rule: "an email reply needs neither from nor subject", in: model.SendMessageInput{ConversationID: conv, Text: x}},
		{rule: "to not an address", in: model.SendMessageInput{Channel: email, To: str("nope"), From: from, Subject: subj, Text: x},
			code: apierr.InvalidEmail, msg: `"nope" is not an email address.`},
		{rule: "to with a display name", in: model.SendMessageInput{Channel: email, To: str("Kim <kim@example.com>"), From: from, Subject: subj, Text: x},
			code: apierr.InvalidEmail, msg: `"Kim <kim@example.com>" is not an email address.`},
		{rule: "to without a dot in the domain", in: model.SendMessageInput{Channel: email, To: str("kim@localhost"), From: from, Subject: subj, Text: x},
			code: apierr.InvalidEmail, msg: `"kim@localhost" is not an email address.`},
		{rule: "from not an address", in: model.SendMessageInput{Channel: email, To: addr, From: str("support"), Subject: subj, Text: x},
			code: apierr.InvalidEmail, msg: `"support" is not an email address.`},
		{rule: "cc not an address", in: model.SendMessageInput{Channel: email, To: addr, From: from, Subject: subj, Text: x, Cc: []string{"b@example.com", "c"}},
			code: apierr.InvalidEmail, msg: `"c" is not an email address.`},
		{rule: "phone without country code", in: model.SendMessageInput{Channel: wa, To: str("5550101"), Text: x},
			code: apierr.InvalidPhone, msg: "needs a country code with a leading +"},
		{rule: "phone that cannot exist", in: model.SendMessageInput{Channel: wa, To: str("+1555"), Text: x},
			code: apierr.InvalidPhone, msg: "needs a country code with a leading +"},
		{rule: "blank instagram user id", in: model.SendMessageInput{Channel: ig, To: str(" "), Text: x},
			code: apierr.InvalidRequest, msg: "to must be the customer's instagram_user_id."},
		{rule: "nil attachment", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{nil}},
			code: apierr.InvalidAttachment, msg: "attachments[0] is empty"},
		{rule: "file_id with inline content", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{
			{FileID: str("file_1"), Filename: str("a.pdf")}}},
			code: apierr.InvalidAttachment, msg: "attachments[0] gives file_id and inline content; give one."},
		{rule: "file_id with content_type", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{
			{FileID: str("file_1"), ContentType: str("image/png")}}},
			code: apierr.InvalidAttachment, msg: "attachments[0] gives file_id and inline content; give one."},
		{rule: "blank file_id", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{{FileID: str(" ")}}},
			code: apierr.InvalidAttachment, msg: "attachments[0].file_id is empty."},
		{rule: "filename without content, second attachment", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{
			{FileID: str("file_1")}, {Filename: str("a.txt")}}},
			code: apierr.InvalidAttachment, msg: "attachments[1] needs file_id, or filename with content_base64."},
		{rule: "a path for a filename", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{inline("/", "aGk=")}},
			code: apierr.InvalidAttachment, msg: "attachments[0].filename must be a file name of 1 to 255 characters."},
		{rule: "content not base64", in: model.SendMessageInput{ConversationID: conv, Attachments: []*model.AttachmentInput{inline("a.txt", "!!!")}},
			code: apierr.InvalidAttachment, msg: "attachments[0].content_base64 is not base64."},
		{rule: "a new email normalized", in: model.SendMessageInput{Channel: email, To: str(" kim@example.com "), From: from,
			Subject: str("  Welcome "), Text: x, Cc: []string{"boss@example.com"},
			Attachments: []*model.AttachmentInput{{FileID: str("file_1")}, inline("dir/a.txt", "aGk=")}},
			check: func(t *testing.T, req *sendRequest) {
				if req.to != "kim@example.com" {
					t.Errorf("to: got %q, want kim@example.com", req.to)
				}
				if req.from != "support@verified.test" {
					t.Errorf("from: got %q, want support@verified.test", req.from)
				}
				if req.subject != "Welcome" {
					t.Errorf("subject: got %q, want Welcome", req.subject)
				}
				if !slices.Equal(req.cc, []string{"boss@example.com"}) {
					t.Errorf("cc: got %q, want [boss@example.com]", req.cc)
				}
				if len(req.files) != 2 || req.files[0].fileID != "file_1" || req.files[1].meta.Filename != "a.txt" || string(req.files[1].content) != "hi" {
					t.Errorf("files: got %+v, want file_1 and a.txt holding hi", req.files)
				}
			}},
		{rule: "a phone normalized to E.164", in: model.SendMessageInput{Channel: wa, To: str("+1 555 010 1234"), Text: x},
			check: func(t *testing.T, req *sendRequest) {
				if req.to != "+15550101234" {
					t.Errorf("to: got %q, want +15550101234", req.to)
				}
			}},
		{rule: "a WhatsApp user id kept as given", in: model.SendMessageInput{Channel: wa, To: str(" US.13491208655302741918 "), Text: x},
			check: func(t *testing.T, req *sendRequest) {
				if req.to != "US.13491208655302741918" {
					t.Errorf("to: got %q, want US.13491208655302741918", req.to)
				}
			}},
	})
}
