package rest_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// liveReply sends a live text reply on conv_live through the stand-in and
// returns the message.
func (h *metaHooks) liveReply(body map[string]any) map[string]any {
	h.T.Helper()
	body["conversation_id"] = "conv_live"
	return h.Want(sendMsg(h.API, "live_all", body), 201, "").Data()
}

func wamidOf(m map[string]any) string {
	return m["delivery"].(map[string]any)["provider_message_id"].(string)
}

// statusEvents counts the message.status events of a message.
func (h *metaHooks) statusEvents(messageID string) int {
	return h.count(`SELECT count(*) FROM events WHERE type = 'message.status' AND envelope->'data'->>'id' = $1`, messageID)
}

func stamp(unix int64) string { return model.NewTimestamp(time.Unix(unix, 0)).String() }

// Statuses move a message forward only, whatever order Meta delivers them
// in and however often: a late delivered or sent, a repeated read and a
// failed after read change nothing.
func TestMetaHookStatusesMoveForwardOnly(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	msg := h.liveReply(map[string]any{"text": "your order shipped"})
	wamid := wamidOf(msg)

	h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "read", at+20))))
	h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "delivered", at+10), waStatus(wamid, "sent", at+5))))
	h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "read", at+30))))
	h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "failed", at+40,
		map[string]any{"code": 131026, "title": "Message undeliverable"}))))
	got := h.messageOf(wamid)
	d := got["delivery"].(map[string]any)
	if got["status"] != "read" || d["read_at"] != stamp(at+20) || d["delivered_at"] != stamp(at+20) || d["error"] != nil || d["failed_at"] != nil {
		t.Errorf("after read, late and repeated statuses: %v", got)
	}
	if n := h.statusEvents(msg["id"].(string)); n != 1 {
		t.Errorf("%d message.status events, want 1 (read)", n)
	}

	// delivered then read in order: two changes, each its own timestamp.
	second := h.liveReply(map[string]any{"text": "and it arrives today"})
	w2 := wamidOf(second)
	h.deliver(waChange("messages", waValue("statuses", waStatus(w2, "sent", at+1), waStatus(w2, "delivered", at+2))))
	h.deliver(waChange("messages", waValue("statuses", waStatus(w2, "read", at+3))))
	d = h.messageOf(w2)["delivery"].(map[string]any)
	if d["delivered_at"] != stamp(at+2) || d["read_at"] != stamp(at+3) || h.statusEvents(second["id"].(string)) != 2 {
		t.Errorf("in order: %v, %d events", d, h.statusEvents(second["id"].(string)))
	}
}

// A failed status puts errors[0] into delivery.error (the API code the
// provider's code maps to, the provider's code and text in the message)
// and nothing moves a failed message again. A 131050
// sets the contact's marketing opt-out; a 131049 holds that recipient back
// like a rate limit. Status errors: developers.facebook.com/docs/whatsapp/
// cloud-api/webhooks/payload-examples#status--message-failed and
// developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes.
func TestMetaHookFailedStatusCarriesTheError(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	for _, c := range []struct {
		err       map[string]any
		code, msg string
	}{
		{map[string]any{"code": 131026, "title": "Message undeliverable", "message": "Message undeliverable",
			"error_data": map[string]any{"details": "Message Undeliverable."}}, "recipient_unreachable", "131026: Message undeliverable"},
		{map[string]any{"code": 131047, "title": "Re-engagement message", "message": "Re-engagement message"},
			"window_closed", "131047: Re-engagement message"},
		{map[string]any{"code": 132012, "title": "Parameter format does not match format in the created template"},
			"invalid_request", "132012: Parameter format does not match format in the created template"},
		{map[string]any{"code": 131031, "title": "Business Account locked"},
			"channel_restricted", "131031: Business Account locked"},
		{map[string]any{"code": 131000, "title": "Something went wrong"},
			"provider_error", "131000: Something went wrong"},
		{map[string]any{"code": 131050, "title": "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business"},
			"recipient_opted_out", "131050: Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business"},
		{map[string]any{"code": 131049, "message": "This message was not delivered to maintain healthy ecosystem engagement."},
			"channel_rate_limited", "131049: This message was not delivered to maintain healthy ecosystem engagement."},
	} {
		msg := h.liveReply(map[string]any{"text": "hello " + c.code})
		wamid := wamidOf(msg)
		h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "delivered", at+1))))
		failed := waChange("messages", waValue("statuses", waStatus(wamid, "failed", at+2, c.err)))
		h.deliver(failed)
		h.deliver(failed)
		h.deliver(waChange("messages", waValue("statuses", waStatus(wamid, "read", at+3))))
		got := h.messageOf(wamid)
		d := got["delivery"].(map[string]any)
		e, _ := d["error"].(map[string]any)
		if got["status"] != "failed" || e["code"] != c.code || e["message"] != c.msg || d["failed_at"] != stamp(at+2) || d["read_at"] != nil {
			t.Errorf("%s: %v", c.msg, got)
		}
		if n := h.statusEvents(msg["id"].(string)); n != 2 {
			t.Errorf("%s: %d message.status events, want 2 (delivered, failed)", c.msg, n)
		}
	}
	contact := h.Want(h.Do("GET", "/v1/contacts/ct_live", "live_all", nil), 200, "").Data()
	if contact["marketing_opt_outs"].(map[string]any)["whatsapp"] != true || contact["opt_outs"].(map[string]any)["whatsapp"] != false {
		t.Errorf("after a 131050 status: %v", contact)
	}
	// A 131049 holds the customer's marketing only (TestA131049HoldsOnlyMarketingToThatCustomer):
	// free text still goes out at once.
	h.Want(h.liveSend(map[string]any{"text": "not held"}), 201, "")
	var held int
	if err := h.Store.DB.Get(&held, `SELECT count(*) FROM provider_holds WHERE recipient = 'marketing:+15550009005'`); err != nil || held != 1 {
		t.Errorf("%d marketing holds of the customer after a 131049 status (%v), want 1", held, err)
	}
}

// Meta took the text of a message and refused its audio: the text reached
// the customer, so the send is not undone; the message is failed with the
// refusal, keeps its wamid, counts its quota unit once, announces
// message.sent then message.status, and later statuses of the part sent
// do not move it.
func TestLiveSendTakenInPartFails(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.Queue(metatest.Script{PathSuffix: "/messages", Match: func(r metatest.Request) bool { return r.JSON()["type"] == "audio" },
		Status: 400, Body: metatest.ErrorBody(131053, 0, "(#131053) Media upload error")})
	before := usedMessages(h.API, "live_all")
	msg := h.liveReply(map[string]any{"text": "listen to this", "attachments": []any{map[string]any{
		"filename": "note.mp3", "content_type": "audio/mpeg", "content_base64": base64.StdEncoding.EncodeToString([]byte("ID3 stand-in"))}}})
	d := msg["delivery"].(map[string]any)
	e, _ := d["error"].(map[string]any)
	if msg["status"] != "failed" || e["code"] != "invalid_request" || e["message"] != "131053: Media upload error (stand-in details 131053)" ||
		d["sent_at"] == nil || d["failed_at"] == nil {
		t.Fatalf("message taken in part: %v", msg)
	}
	texts := h.graph.Requests(func(r metatest.Request) bool {
		return strings.HasSuffix(r.Path, "/messages") && r.JSON()["type"] == "text"
	})
	if len(texts) != 1 || wamidOf(msg) != texts[0].AnswerJSON()["messages"].([]any)[0].(map[string]any)["id"] {
		t.Fatalf("text sends %+v, provider id %s", texts, wamidOf(msg))
	}
	if used := usedMessages(h.API, "live_all"); used != before+1 {
		t.Errorf("quota used %v, want %v", used, before+1)
	}
	var types []string
	if err := h.Store.DB.Select(&types, `SELECT type FROM events WHERE envelope->'data'->>'id' = $1 ORDER BY seq`, msg["id"]); err != nil {
		t.Fatal(err)
	}
	if strings.Join(types, ",") != "message.sent,message.status" {
		t.Errorf("events %v", types)
	}
	h.deliver(waChange("messages", waValue("statuses", waStatus(wamidOf(msg), "delivered", resttest.Epoch.Unix()+5))))
	if got := h.messageOf(wamidOf(msg)); got["status"] != "failed" || got["delivery"].(map[string]any)["delivered_at"] != nil {
		t.Errorf("a status of the part sent moved the failed message: %v", got)
	}
}
