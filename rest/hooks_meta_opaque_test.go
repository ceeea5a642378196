package rest_test

import (
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// copyUnknown copies a provider_unknown message into a new live
// conversation of another WhatsApp account (and workspace), as a send of
// that account the sweep gave up.
func (h *metaHooks) copyUnknown(from, id, workspaceID, accountID, websiteID string) {
	h.T.Helper()
	conv := id + "_conv"
	dbExec(h.T, h.API, `INSERT INTO conversations SELECT (jsonb_populate_record(NULL::conversations, to_jsonb(c)
		|| jsonb_build_object('id', $2::text, 'workspace_id', $3::text, 'account_id', $4::text, 'website_id', $5::text, 'contact_id', NULL))).*
		FROM conversations c WHERE c.id = (SELECT conversation_id FROM messages WHERE id = $1)`, from, conv, workspaceID, accountID, websiteID)
	dbExec(h.T, h.API, `INSERT INTO messages SELECT (jsonb_populate_record(NULL::messages, to_jsonb(m)
		|| jsonb_build_object('id', $2::text, 'workspace_id', $3::text, 'conversation_id', $4::text))).*
		FROM messages m WHERE m.id = $1`, from, id, workspaceID, conv)
}

// A process that dies after Meta took a send but before its confirm stored
// the wamid: the sweep gives the message up as provider_unknown, and Meta's
// first status of the wamid, carrying our message id as
// biz_opaque_callback_data, settles it (sent with the wamid, then the
// status forward: message.status failed, sent, delivered; no message.sent).
// The same status naming a provider_unknown message of another account,
// in the same workspace or another, changes nothing and is dropped after
// the wait as any unknown status. A stalled process's answer after the
// status settled the message answers 201 with it as it is.
func TestMetaHookCallbackSettlesALostConfirm(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	held := h.holdSend("wamid.LOST", "your parcel left")
	// The process "dies": its provider call does not return to confirm
	// (until the end, where it only stalled).
	answered := false
	t.Cleanup(func() {
		if !answered {
			close(held.release)
			<-held.done
		}
	})
	id := h.sweepUnknown()
	if got := held.req.JSON()["biz_opaque_callback_data"]; got != id {
		t.Fatalf("the send carried biz_opaque_callback_data %v, want %s", got, id)
	}

	// Another account's provider_unknown messages, named on wa_main's number.
	h.copyUnknown(id, "msg_foreign_ws", "ws_other", "wa_other", "web_other")
	h.copyUnknown(id, "msg_foreign_acc", "ws_main", "wa_external", "web_second")
	for _, foreign := range []string{"msg_foreign_ws", "msg_foreign_acc"} {
		st := waStatus("wamid.FOREIGN_"+foreign, "delivered", at+300)
		st["biz_opaque_callback_data"] = foreign
		hook := h.postHook(waChange("messages", waValue("statuses", st)))
		if err := h.Resolver.MetaHooks.Process(t.Context(), hook); !errors.Is(err, metahook.ErrStatusEarly) {
			t.Errorf("%s within the wait: %v, want ErrStatusEarly as any unknown wamid", foreign, err)
		}
		h.Clock.Advance(metahook.DefaultEarlyStatusWait)
		if err := h.Resolver.MetaHooks.Process(t.Context(), hook); err != nil || !h.hookProcessed(hook) {
			t.Errorf("%s after the wait: %v (processed %v), want dropped", foreign, err, h.hookProcessed(hook))
		}
		var status, code string
		if err := h.Store.DB.QueryRow(`SELECT status, coalesce(delivery->'error'->>'code', '') FROM messages WHERE id = $1`,
			foreign).Scan(&status, &code); err != nil || status != "failed" || code != "provider_unknown" {
			t.Errorf("%s: %s %s %v, want failed provider_unknown", foreign, status, code, err)
		}
		if n := h.count(`SELECT count(*) FROM provider_messages WHERE message_id = $1`, foreign); n != 0 {
			t.Errorf("%s: %d provider ids stored, want 0", foreign, n)
		}
		if n := h.statusEvents(foreign); n != 0 {
			t.Errorf("%s: %d message.status events, want 0", foreign, n)
		}
	}

	st := waStatus("wamid.LOST", "delivered", at+400)
	st["biz_opaque_callback_data"] = id
	h.deliver(waChange("messages", waValue("statuses", st)))
	got := h.messageOf("wamid.LOST")
	d := got["delivery"].(map[string]any)
	if got["id"] != id || got["status"] != "delivered" || d["provider_message_id"] != "wamid.LOST" ||
		d["delivered_at"] != stamp(at+400) || d["sent_at"] != stamp(at+400) || d["error"] != nil || d["failed_at"] != nil {
		t.Errorf("after the delivered status: %v", got)
	}
	h.wantSettledEvents(id)
	// Meta retries the payload and sends read: forward only, once each.
	h.deliver(waChange("messages", waValue("statuses", st)))
	read := waStatus("wamid.LOST", "read", at+500)
	read["biz_opaque_callback_data"] = id
	h.deliver(waChange("messages", waValue("statuses", read)))
	if got := h.messageOf("wamid.LOST"); got["status"] != "read" || h.statusEvents(id) != 4 {
		t.Errorf("after a retried delivered and a read: %v, %d message.status events, want read and 4", got, h.statusEvents(id))
	}

	// Had the process only stalled, its answer comes after the status
	// settled the message: 201 with the message as it is, nothing sent or
	// recorded again.
	answered = true
	ans := held.finish(t)
	if ans.status != 201 || ans.body["id"] != id || ans.body["status"] != "read" ||
		ans.body["delivery"].(map[string]any)["provider_message_id"] != "wamid.LOST" {
		t.Errorf("the stalled answer: %d %v, want 201 read with wamid.LOST", ans.status, ans.body)
	}
	if n := h.count(`SELECT count(*) FROM events WHERE envelope->'data'->>'id' = $1`, id); n != 4 || h.messageOf("wamid.LOST")["status"] != "read" {
		t.Errorf("%d events after the stalled answer, want the 4 message.status; message %v", n, h.messageOf("wamid.LOST"))
	}
	if n := len(h.graph.Requests(nil)); n != 1 {
		t.Errorf("%d provider requests, want the one send", n)
	}
}
