package rest_test

import (
	"strings"
	"testing"
)

// Meta's answers to a send map per the Meta codes table (docs/whatsapp.md): malformed or invalid
// requests are 400 invalid_request, account or policy blocks 403
// channel_restricted, a 131050 422 recipient_opted_out that sets the
// contact's marketing opt-out; every message keeps Meta's code and text,
// and an unknown code stays 503 with them. Envelope:
// developers.facebook.com/docs/graph-api/guides/error-handling; codes:
// developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes.
func TestLiveSendMetaCodes(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	for _, c := range []struct {
		status, code int
		text         string
		httpStatus   int
		want         string
	}{
		{400, 100, "(#100) Invalid parameter", 400, "invalid_request"},
		{400, 131009, "(#131009) Parameter value is not valid", 400, "invalid_request"},
		{400, 368, "(#368) Temporarily blocked for policies violations", 403, "channel_restricted"},
		{403, 200, "(#200) Permissions error", 403, "channel_restricted"},
		{400, 131061, "(#131061) Some code no table names", 503, "channel_unavailable"},
	} {
		h.graph.Fail("/messages", c.status, c.code, 0, c.text)
		e := h.Want(h.liveSend(map[string]any{"text": "hi"}), c.httpStatus, c.want).Body["error"].(map[string]any)
		code := strings.TrimPrefix(c.text[:strings.Index(c.text, ")")], "(#")
		if msg, _ := e["message"].(string); !strings.Contains(msg, code+": "+c.text[strings.Index(c.text, ")")+2:]) {
			t.Errorf("%d: message %q lacks Meta's code and text", c.code, msg)
		}
	}

	h.graph.Fail("/messages", 400, 131050, 0, "(#131050) Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business")
	h.Want(sendMsg(h.API, "live_all", map[string]any{"channel": "whatsapp", "to": "+15550009005",
		"whatsapp_account_id": "wa_main", "template": tpl("spring_sale", "20%")}), 422, "recipient_opted_out")
	c := h.Want(h.Do("GET", "/v1/contacts/ct_live", "live_all", nil), 200, "").Data()
	if c["marketing_opt_outs"].(map[string]any)["whatsapp"] != true || c["opt_outs"].(map[string]any)["whatsapp"] != false {
		t.Errorf("after a 131050: %v", c)
	}
	if n := h.count(`SELECT count(*) FROM events WHERE type = 'contact.updated' AND envelope->'data'->>'id' = 'ct_live'`); n != 1 {
		t.Errorf("%d contact.updated events, want 1", n)
	}
	h.Want(h.liveSend(map[string]any{"text": "a reply still goes"}), 201, "")
}
