package rest_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// user_preferences stop sets the contact's marketing_opt_outs.whatsapp,
// resume clears it, and a repeat changes nothing; the opt-out refuses
// marketing messages and MARKETING templates only, never a reply or a
// utility template, and leaves opt_outs.whatsapp (an inbound STOP) alone
// . Payload: developers.facebook.com/docs/whatsapp/
// cloud-api/webhooks/reference/user_preferences.
func TestMetaHookUserPreferencesStopAndResume(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	preference := func(value string) map[string]any {
		v := waValue("user_preferences", map[string]any{"wa_id": "15550009005", "detail": "User requested to stop marketing messages",
			"category": "marketing_messages", "value": value, "timestamp": itoa(resttest.Epoch.Unix())})
		v["contacts"] = []any{map[string]any{"wa_id": "15550009005", "profile": map[string]any{"name": "Liam"}}}
		return waChange("user_preferences", v)
	}
	flags := func() (marketing, all bool) {
		t.Helper()
		c := h.Want(h.Do("GET", "/v1/contacts/ct_live", "live_all", nil), 200, "").Data()
		return c["marketing_opt_outs"].(map[string]any)["whatsapp"].(bool), c["opt_outs"].(map[string]any)["whatsapp"].(bool)
	}
	updates := func() int {
		return h.count(`SELECT count(*) FROM events WHERE type = 'contact.updated' AND envelope->'data'->>'id' = 'ct_live'`)
	}
	templateSend := func(name string) *resttest.Response {
		return sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": "+15550009005",
			"whatsapp_account_id": "wa_main", "template": tpl(name, "20%")})
	}

	h.deliver(preference("stop"))
	h.deliver(preference("stop"))
	if marketing, all := flags(); !marketing || all || updates() != 1 {
		t.Fatalf("after stop (twice): marketing %v, all %v, %d contact.updated", marketing, all, updates())
	}
	calls := len(h.graph.Requests(nil))
	h.Want(templateSend("spring_sale"), 422, "recipient_opted_out")
	if len(h.graph.Requests(nil)) != calls {
		t.Error("a marketing template to an opted-out customer reached Meta")
	}
	h.Want(h.liveSend(map[string]any{"text": "still there?"}), 201, "")
	h.Want(templateSend("order_update"), 201, "")
	h.deliver(preference("resume"))
	if marketing, _ := flags(); marketing || updates() != 2 {
		t.Fatalf("after resume: marketing %v, %d contact.updated", marketing, updates())
	}
	h.Want(templateSend("spring_sale"), 201, "")

	// An inbound STOP opts out of everything; resume does not clear it.
	stop := waMessage("wamid.STOP", resttest.Epoch.Unix(), "text", map[string]any{"body": "STOP"})
	stop["from"] = "15550009005"
	v := waValue("messages", stop)
	v["contacts"] = []any{map[string]any{"profile": map[string]any{"name": "Liam"}, "wa_id": "15550009005"}}
	h.deliver(waChange("messages", v))
	h.deliver(preference("resume"))
	if _, all := flags(); !all {
		t.Fatal("a resume cleared the opt-out of an inbound STOP")
	}
	h.Want(h.liveSend(map[string]any{"text": "welcome back"}), 422, "recipient_opted_out")
}

// liveSend posts a live reply on conv_live and returns the answer as it is.
func (h *metaHooks) liveSend(body map[string]any) *resttest.Response {
	h.T.Helper()
	body["conversation_id"] = "conv_live"
	return sendMsg(h.API, "live_all", body)
}

// A message_template_status_update changes a synced template at once: a
// paused template is refused before any call, an approved one sends again.
func TestMetaHookTemplateStatusUpdates(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	update := func(event string) map[string]any {
		return waChange("message_template_status_update", map[string]any{"event": event, "message_template_id": 594425479261596,
			"message_template_name": "order_update", "message_template_language": "en_US", "reason": "NONE"})
	}
	send := map[string]any{"channel": "whatsapp", "to": "+15550009005", "whatsapp_account_id": "wa_main", "template": tpl("order_update", "A-1")}
	templateSends := func() int {
		return len(h.graph.Requests(func(r metatest.Request) bool {
			return strings.HasSuffix(r.Path, "/messages") && r.JSON()["type"] == "template"
		}))
	}
	h.Want(sendMsg(h.API, "live_all", send), 201, "")
	h.deliver(update("PAUSED"))
	h.Want(sendMsg(h.API, "live_all", send), 422, "template_not_approved")
	if templateSends() != 1 {
		t.Errorf("%d template sends reached Meta, want 1: the paused one was called", templateSends())
	}
	status := func() string {
		var s string
		if err := h.Store.DB.Get(&s, `SELECT status FROM templates WHERE livemode AND name = 'order_update' AND language = 'en_US'`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := status(); s != "REJECTED" {
		t.Errorf("paused template has status %s", s)
	}
	h.deliver(update("APPROVED"))
	h.Want(sendMsg(h.API, "live_all", send), 201, "")
	if templateSends() != 2 || status() != "APPROVED" {
		t.Errorf("after approval: %d template sends, status %s", templateSends(), status())
	}
}
