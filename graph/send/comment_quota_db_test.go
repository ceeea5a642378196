package send_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

// Replies in an Instagram comment conversation: public replies at any
// time and text only, one private reply per comment within 7 days of it,
// no tag; a thread without a comment takes neither.
func TestCommentRulesOverTheFixture(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	day := 24 * time.Hour
	f.commentThread(t, "conv_ig_comment", epoch.Add(-2*day)) // outside the 24-hour window
	f.commentThread(t, "conv_ig_old", epoch.Add(-7*day))
	f.commentThread(t, "conv_ig_nearly_old", epoch.Add(-7*day+time.Second))
	f.commentThread(t, "conv_ig_empty", time.Time{})
	png := []*model.AttachmentInput{{Filename: ptr("a.png"), ContentBase64: ptr("iVBORw0KGgo=")}}
	as := func(conv, replyAs string, edit func(*model.SendMessageInput)) model.SendMessageInput {
		in := reply(conv)
		if replyAs != "" {
			in.ReplyAs = &replyAs
		}
		if edit != nil {
			edit(&in)
		}
		return in
	}
	withFile := func(in *model.SendMessageInput) { in.Text, in.Attachments = nil, png }
	tagged := func(in *model.SendMessageInput) { in.Tag = ptr("human_agent") }
	// In order: each case sees what the ones before it sent.
	for _, c := range []struct {
		rule string
		in   model.SendMessageInput
		code apierr.Code
		msg  string
	}{
		{"a public reply after 2 days", as("conv_ig_comment", "comment", nil), "", ""},
		{"a public reply, reply_as left out", as("conv_ig_comment", "", nil), "", ""},
		{"a file on a public reply", as("conv_ig_comment", "comment", withFile),
			apierr.UnsupportedAttachment, "A public comment reply takes text only."},
		{"a file, reply_as left out", as("conv_ig_comment", "", withFile),
			apierr.UnsupportedAttachment, "A public comment reply takes text only."},
		{"tag on a comment", as("conv_ig_comment", "comment", tagged),
			apierr.InvalidRequest, "tag human_agent applies to Instagram direct messages only."},
		{"the private reply", as("conv_ig_comment", "dm", nil), "", ""},
		{"a second private reply", as("conv_ig_comment", "dm", nil), apierr.PrivateReplyUsed, "The comment already has its one private reply."},
		{"a public reply after the private one", as("conv_ig_comment", "comment", nil), "", ""},
		{"a private reply at 7 days", as("conv_ig_old", "dm", nil), apierr.PrivateReplyExpired, "The comment is over 7 days old"},
		{"a public reply at 7 days", as("conv_ig_old", "comment", nil), "", ""},
		{"a private reply a second before 7 days", as("conv_ig_nearly_old", "dm", nil), "", ""},
		{"a private reply without a comment", as("conv_ig_empty", "dm", nil),
			apierr.InvalidRequest, "Conversation conv_ig_empty has no comment to reply to."},
		{"a public reply without a comment", as("conv_ig_empty", "comment", nil),
			apierr.InvalidRequest, "Conversation conv_ig_empty has no comment to reply to."},
	} {
		_, err := f.svc.Send(testKey, send.Request{Input: c.in})
		t.Run(c.rule, func(t *testing.T) { apierrtest.Want(t, err, c.code, c.msg) })
	}
	if n := f.count(t, `SELECT count(*) FROM private_replies`); n != 2 {
		t.Errorf("private replies stored: got %d, want 2", n)
	}
}

// The API quota: live sends only, counted after every rule passed, given
// back when the provider refuses, not used by the service's own replies,
// reset each month.
func TestQuotaOverTheFixture(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	provider := &accepting{}
	f.svc.Adapters = map[string]channels.Adapter{"whatsapp": provider}
	f.exec(t, `UPDATE workspaces SET messages_limit = 1 WHERE id = 'ws_main'`)
	// Live copies of the fixture's templates, as the template sync makes.
	f.exec(t, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode`)
	used := func(t *testing.T, period string, want int) {
		t.Helper()
		var got int
		err := f.store.InTx(t.Context(), func(q repo.Queries) (err error) {
			got, err = q.MessagesUsed(t.Context(), "ws_main", true, period)
			return err
		})
		if err != nil || got != want {
			t.Errorf("messages used in %s: got %d (%v), want %d", period, got, err, want)
		}
	}
	step := func(t *testing.T, rule string, err error, code apierr.Code, msg string, calls int32) {
		t.Helper()
		apierrtest.Want(t, err, code, msg)
		if got := provider.calls.Load(); got != calls {
			t.Errorf("%s: provider calls: got %d, want %d", rule, got, calls)
		}
	}
	_, err := f.svc.Send(liveKey, send.Request{Input: reply("conv_live")})
	step(t, "the first live send", err, "", "", 1)
	used(t, "2026-10", 1)
	_, err = f.svc.Send(liveKey, send.Request{Input: reply("conv_live")})
	step(t, "a send over the quota", err, apierr.APIQuotaExceeded, "This month's API messages are used up", 1)
	_, err = f.svc.Send(liveKey, send.Request{Input: model.SendMessageInput{ConversationID: ptr("conv_live")}})
	step(t, "field rules answer before the quota", err, apierr.TextRequired, "no content", 1)
	_, err = f.svc.Send(testKey, send.Request{Input: reply("conv_wa_1h")})
	step(t, "a sandbox send uses no quota", err, "", "", 1)
	_, err = f.svc.Reply(t.Context(), repo.Scope{WorkspaceID: "ws_main", Livemode: true}, "conv_live", "from the AI", send.Sender{Type: "ai"})
	step(t, "the AI's reply uses no quota", err, "", "", 2)
	used(t, "2026-10", 1)

	f.now = time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC)
	_, err = f.svc.Send(liveKey, send.Request{Input: reply("conv_live")})
	step(t, "channel rules answer before the quota", err, apierr.WindowClosed, "Over 24 hours", 2)

	f.now = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	used(t, "2026-11", 0)
	f.svc.Adapters["whatsapp"] = refusing{channels.Refusal{Code: apierr.RecipientOptedOut, Reason: "the provider said no"}}
	newNumber := model.SendMessageInput{Channel: ptr("whatsapp"), To: ptr("+15550301234"), WhatsappAccountID: ptr("wa_main"),
		Template: tpl("order_update", "N")}
	_, err = f.svc.Send(liveKey, send.Request{Input: newNumber})
	step(t, "a provider's refusal", err, apierr.RecipientOptedOut, "", 2)
	used(t, "2026-11", 0)
	f.svc.Adapters["whatsapp"] = provider
	_, err = f.svc.Send(liveKey, send.Request{Input: newNumber})
	step(t, "a new month", err, "", "", 3)
	used(t, "2026-11", 1)
}
