package send_test

import (
	"context"
	"testing"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
)

func ptr[T any](v T) *T { return &v }

func tpl(name string, params ...string) *model.TemplateInput {
	return &model.TemplateInput{Name: &name, Language: ptr("en_US"), Parameters: params}
}

// newEmail is a new email thread from an address to another.
func newEmail(from, to string) model.SendMessageInput {
	return model.SendMessageInput{Channel: ptr("email"), From: &from, To: &to, Subject: ptr("s"), Text: ptr("x")}
}

func reply(conv string) model.SendMessageInput {
	return model.SendMessageInput{ConversationID: &conv, Text: ptr("x")}
}

// The rules that read the database (the look-ups, the key's restrictions,
// templates, senders, recipients), over the API tests' fixture, and their
// order; a refused send stores nothing.
func TestSendRulesOverTheFixture(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	// Email threads in states no send makes: on the unverified sender, to
	// a bounced address, without a customer.
	onHello := f.sent(t, testKey, newEmail("support@verified.test", "cust@example.com")).ConversationID
	f.exec(t, `UPDATE conversations SET account_id = 'hello', website_id = 'web_second' WHERE id = $1`, onHello)
	bounced := f.sent(t, testKey, newEmail("support@verified.test", "bounced@example.com")).ConversationID
	f.exec(t, `UPDATE contacts SET email_suppressed = '{"reason": "hard_bounce"}' WHERE email = 'bounced@example.com'`)
	orphan := f.sent(t, testKey, newEmail("support@verified.test", "gone@example.com")).ConversationID
	f.exec(t, `DELETE FROM contacts WHERE email = 'gone@example.com'`)
	before := f.count(t, `SELECT count(*) FROM messages WHERE direction = 'outbound'`)

	exe := []*model.AttachmentInput{{Filename: ptr("run.exe"), ContentBase64: ptr("TVqQAAMAAAAEAAAA")}}
	missingFile := []*model.AttachmentInput{{FileID: ptr("file_missing")}}
	waTo := func(to, account string, in model.SendMessageInput) model.SendMessageInput {
		in.Channel, in.To = ptr("whatsapp"), &to
		if account != "" {
			in.WhatsappAccountID = &account
		}
		return in
	}
	byContact := func(channel, contact, account string, in model.SendMessageInput) model.SendMessageInput {
		in.Channel, in.ContactID = &channel, &contact
		if account != "" {
			in.WhatsappAccountID = &account
		}
		return in
	}
	text := model.SendMessageInput{Text: ptr("x")}
	cases := []struct {
		rule      string
		key       context.Context
		in        model.SendMessageInput
		marketing bool
		code      apierr.Code
		msg       string
	}{
		{rule: "unknown conversation", key: testKey, in: reply("conv_missing"), code: apierr.ConversationNotFound, msg: "No conversation conv_missing."},
		{rule: "another workspace's conversation", key: testKey, in: reply("conv_other"), code: apierr.ConversationNotFound, msg: "conv_other"},
		{rule: "a live conversation, for a test key", key: testKey, in: reply("conv_live"), code: apierr.ConversationNotFound, msg: "conv_live"},
		{rule: "a conversation outside the key's channels", key: waOnly, in: reply("conv_web_closed"), code: apierr.ConversationNotFound, msg: "conv_web_closed"},
		{rule: "a conversation outside the key's websites", key: webSecond, in: reply("conv_wa_1h"), code: apierr.ConversationNotFound, msg: "conv_wa_1h"},
		{rule: "unknown contact", key: testKey, in: byContact("whatsapp", "ct_missing", "wa_main", text), code: apierr.ContactNotFound, msg: "No contact ct_missing."},
		{rule: "a contact without an Instagram id", key: testKey, in: byContact("instagram", "ct_old", "", text),
			code: apierr.InvalidRequest, msg: "Contact ct_old has no instagram_user_id."},
		{rule: "a contact without a phone", key: testKey, in: byContact("whatsapp", "ct_visitor", "wa_main", text),
			code: apierr.InvalidRequest, msg: "Contact ct_visitor has no phone number or WhatsApp user id for WhatsApp."},
		{rule: "unknown uploaded file", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_1h"), Attachments: missingFile},
			code: apierr.FileNotFound, msg: "No uploaded file file_missing."},
		{rule: "a channel outside the key", key: waOnly, in: newEmail("support@verified.test", "a@example.com"),
			code: apierr.ChannelNotAllowed, msg: "This key may not use the email channel."},
		{rule: "a number outside the key's websites", key: webSecond, in: waTo("+15550101234", "wa_main", model.SendMessageInput{Template: tpl("order_update", "1")}),
			code: apierr.WebsiteNotAllowed, msg: "web_main"},
		{rule: "several numbers, none named", key: testKey, in: waTo("+15550101234", "", text),
			code: apierr.WhatsappAccountRequired, msg: "say which with whatsapp_account_id"},
		{rule: "a closed website chat", key: testKey, in: reply("conv_web_closed"), code: apierr.ConversationClosed, msg: "Website chat conv_web_closed is closed"},
		{rule: "WhatsApp, 25 hours", key: testKey, in: reply("conv_wa_25h"), code: apierr.WindowClosed, msg: "send an approved template instead"},
		{rule: "WhatsApp, a number that never wrote", key: testKey, in: waTo("+15550101234", "wa_main", text),
			code: apierr.WindowClosed, msg: "send an approved template instead"},
		{rule: "a pending template", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_25h"), Template: tpl("pending_notice", "1")},
			code: apierr.TemplateNotApproved, msg: "No approved template pending_notice (en_US) on WhatsApp number wa_main."},
		{rule: "an unknown template", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_25h"), Template: tpl("nope", "1")},
			code: apierr.TemplateNotApproved, msg: "No approved template nope (en_US)"},
		{rule: "a template of another number", key: testKey, in: waTo("+15550101234", "wa_external", model.SendMessageInput{Template: tpl("order_update", "1")}),
			code: apierr.TemplateNotApproved, msg: "on WhatsApp number wa_external."},
		{rule: "a template without its parameter", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_25h"), Template: tpl("order_update")},
			code: apierr.InvalidRequest, msg: "Template order_update takes 1 parameters; 0 were given."},
		{rule: "a UTILITY template on the marketing endpoint", key: testKey, marketing: true,
			in:   waTo("+15550104444", "wa_main", model.SendMessageInput{Template: tpl("order_update", "1")}),
			code: apierr.TemplateNotMarketing, msg: "Template order_update is UTILITY"},
		{rule: "an unverified domain, new thread", key: testKey, in: newEmail("hello@unverified.test", "a@example.com"),
			code: apierr.SenderNotVerified, msg: "The domain unverified.test is not verified"},
		{rule: "an unverified domain, reply from the thread's address", key: testKey, in: reply(onHello),
			code: apierr.SenderNotVerified, msg: "The domain unverified.test is not verified"},
		{rule: "no such sender", key: testKey, in: newEmail("nobody@verified.test", "a@example.com"),
			code: apierr.SenderNotFound, msg: "nobody@verified.test is not an email address this key can send from"},
		{rule: "a sender outside the key's websites", key: webSecond, in: newEmail("support@verified.test", "a@example.com"),
			code: apierr.SenderNotFound, msg: "support@verified.test is not an email address this key can send from"},
		{rule: "unsubscribed, new thread", key: testKey, in: newEmail("support@verified.test", "otto@customers.test"),
			code: apierr.RecipientUnsubscribed, msg: "otto@customers.test unsubscribed"},
		{rule: "a bounced address", key: testKey, in: reply(bounced), code: apierr.RecipientSuppressed, msg: "bounced@example.com bounced permanently"},
		{rule: "a thread without its customer", key: testKey, in: reply(orphan), code: apierr.NoRecipient, msg: "no customer address"},
		{rule: "WhatsApp opt-out, text", key: testKey, in: reply("conv_wa_optout"), code: apierr.RecipientOptedOut, msg: "opted out of whatsapp"},
		{rule: "WhatsApp opt-out, template", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_optout"), Template: tpl("order_update", "1")},
			code: apierr.RecipientOptedOut, msg: "opted out of whatsapp"},
		{rule: "WhatsApp opt-out, marketing", key: testKey, marketing: true,
			in:   byContact("whatsapp", "ct_optout", "wa_main", model.SendMessageInput{Template: tpl("spring_sale", "1")}),
			code: apierr.RecipientOptedOut, msg: "opted out of whatsapp"},
		// The order: the first failing rule answers.
		{rule: "conversation before files", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_missing"), Attachments: missingFile},
			code: apierr.ConversationNotFound, msg: "conv_missing"},
		{rule: "files before the key's channels", key: waOnly, in: model.SendMessageInput{Channel: ptr("email"), To: ptr("a@example.com"),
			From: ptr("support@verified.test"), Subject: ptr("s"), Attachments: missingFile},
			code: apierr.FileNotFound, msg: "file_missing"},
		{rule: "the key's channels before the channel rules", key: waOnly, in: newEmail("hello@unverified.test", "otto@customers.test"),
			code: apierr.ChannelNotAllowed, msg: "email channel"},
		{rule: "closed before attachments", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_web_closed"), Attachments: exe},
			code: apierr.ConversationClosed, msg: "is closed"},
		{rule: "window before opt-out", key: testKey, in: byContact("whatsapp", "ct_optout", "wa_external", text),
			code: apierr.WindowClosed, msg: "Over 24 hours"},
		{rule: "template before opt-out", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_optout"), Template: tpl("pending_notice", "1")},
			code: apierr.TemplateNotApproved, msg: "pending_notice"},
		{rule: "sender before unsubscribed", key: testKey, in: newEmail("hello@unverified.test", "otto@customers.test"),
			code: apierr.SenderNotVerified, msg: "unverified.test"},
		{rule: "opt-out before attachments", key: testKey, in: model.SendMessageInput{ConversationID: ptr("conv_wa_optout"), Attachments: exe},
			code: apierr.RecipientOptedOut, msg: "opted out of whatsapp"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			var err error
			if c.marketing {
				_, err = f.svc.SendMarketing(c.key, send.MarketingRequest{Input: model.MarketingMessageInput{To: c.in.To, ContactID: c.in.ContactID,
					Template: c.in.Template, WhatsappAccountID: c.in.WhatsappAccountID}})
			} else {
				_, err = f.svc.Send(c.key, send.Request{Input: c.in})
			}
			apierrtest.Want(t, err, c.code, c.msg)
		})
	}
	if after := f.count(t, `SELECT count(*) FROM messages WHERE direction = 'outbound'`); after != before {
		t.Errorf("outbound messages after refused sends: got %d, want %d", after, before)
	}
	if n := f.count(t, `SELECT count(*) FROM contacts WHERE phone IN ('+15550101234', '+15550104444') OR email = 'a@example.com'`); n != 0 {
		t.Errorf("contacts created by refused sends: got %d, want 0", n)
	}
}

// A marketing send from a number not onboarded for marketing messages is
// 422 marketing_not_onboarded, in test mode as in live mode.
func TestMarketingNotOnboarded(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	f.exec(t, `UPDATE channel_accounts SET marketing_messages = 'ELIGIBLE' WHERE id = 'wa_main'`)
	_, err := f.svc.SendMarketing(testKey, send.MarketingRequest{Input: model.MarketingMessageInput{To: ptr("+15550104444"),
		Template: tpl("spring_sale", "1"), WhatsappAccountID: ptr("wa_main")}})
	apierrtest.Want(t, err, apierr.MarketingNotOnboarded, "WhatsApp number wa_main is not onboarded for marketing messages.")
}
