package rest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// heldSend is a live send whose provider call the stand-in holds until
// release: the message stays sending (reserved, not confirmed) meanwhile.
type heldSend struct {
	// req is the send request the stand-in holds, set once arrived closes.
	req     metatest.Request
	arrived chan struct{}
	release chan struct{}
	done    chan heldAnswer
}

type heldAnswer struct {
	status int
	body   map[string]any
	err    error
}

// holdSend scripts the stand-in to answer the next send with wamid only
// after release is closed, and posts a live reply on conv_live.
func (h *metaHooks) holdSend(wamid, text string) *heldSend {
	h.T.Helper()
	return h.holdSendWithKey(wamid, text, "")
}

// holdSendWithKey is holdSend under an Idempotency-Key ("" none). The
// stand-in is let go when the test ends, if the test did not.
func (h *metaHooks) holdSendWithKey(wamid, text, key string) *heldSend {
	h.T.Helper()
	s := &heldSend{arrived: make(chan struct{}), release: make(chan struct{}), done: make(chan heldAnswer, 1)}
	var once sync.Once
	h.graph.Queue(metatest.Script{PathSuffix: "/messages", Status: 200,
		Match: func(r metatest.Request) bool {
			once.Do(func() { s.req = r; close(s.arrived) })
			<-s.release
			return true
		},
		Body: map[string]any{"messaging_product": "whatsapp",
			"contacts": []any{map[string]any{"input": "15550009005", "wa_id": "15550009005"}},
			"messages": []any{map[string]any{"id": wamid}}}})
	raw, err := json.Marshal(map[string]any{"conversation_id": "conv_live", "text": text})
	if err != nil {
		h.T.Fatal(err)
	}
	req, err := http.NewRequest("POST", h.HTTP.URL+"/v1/messages", bytes.NewReader(raw))
	if err != nil {
		h.T.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.Key("live_all"))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			s.done <- heldAnswer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(b, &out)
		s.done <- heldAnswer{status: resp.StatusCode, body: out.Data}
	}()
	select {
	case <-s.arrived:
	case <-time.After(10 * time.Second):
		h.T.Fatal("the send never reached the stand-in")
	}
	h.T.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
	})
	return s
}

// finish lets the provider answer and returns the API's answer.
func (s *heldSend) finish(t *testing.T) heldAnswer {
	t.Helper()
	close(s.release)
	a := <-s.done
	if a.err != nil {
		t.Fatal(a.err)
	}
	return a
}

// hookProcessed says whether a stored hook is marked processed.
func (h *metaHooks) hookProcessed(id string) bool {
	return h.count(`SELECT count(*) FROM provider_hooks WHERE id = $1 AND processed_at IS NOT NULL`, id) == 1
}

// A status Meta posts before the send that got its wamid confirmed (the
// provider call still running) is not lost: its job fails as retryable
// while the send is sending, even past the wait, and applies once the
// confirm stored the wamid.
func TestMetaHookStatusBeforeConfirmIsRetried(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	held := h.holdSend("wamid.EARLY", "your table is ready")

	hook := h.postHook(waChange("messages", waValue("statuses", waStatus("wamid.EARLY", "delivered", at+5))))
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); !errors.Is(err, metahook.ErrStatusEarly) {
		t.Fatalf("processing the early status: %v, want ErrStatusEarly", err)
	}
	h.Clock.Advance(5 * time.Minute) // past the wait, but the send is still sending
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); !errors.Is(err, metahook.ErrStatusEarly) {
		t.Fatalf("processing again while the send is sending: %v, want ErrStatusEarly", err)
	}
	if h.hookProcessed(hook) {
		t.Fatal("the early status's hook is marked processed")
	}

	ans := held.finish(t)
	if ans.status != 201 || ans.body["status"] != "sent" {
		t.Fatalf("the held send answered %d %v", ans.status, ans.body)
	}
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); err != nil {
		t.Fatalf("processing after the confirm: %v", err)
	}
	got := h.messageOf("wamid.EARLY")
	d := got["delivery"].(map[string]any)
	if got["status"] != "delivered" || d["delivered_at"] != stamp(at+5) || d["provider_message_id"] != "wamid.EARLY" {
		t.Errorf("after the early delivered: %v", got)
	}
	if n := h.statusEvents(got["id"].(string)); n != 1 || !h.hookProcessed(hook) {
		t.Errorf("%d message.status events (want 1), hook processed %v", n, h.hookProcessed(hook))
	}
}

// A status of a wamid none of our messages has, with nothing sending on
// the number, is retried within the wait and dropped (hook processed,
// nothing changed) after it.
func TestMetaHookUnknownStatusIsDroppedAfterTheWait(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	hook := h.postHook(waChange("messages", waValue("statuses", waStatus("wamid.NEVER", "read", at+5))))
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); !errors.Is(err, metahook.ErrStatusEarly) {
		t.Fatalf("within the wait: %v, want ErrStatusEarly", err)
	}
	h.Clock.Advance(metahook.DefaultEarlyStatusWait)
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); err != nil {
		t.Fatalf("after the wait: %v, want dropped", err)
	}
	if !h.hookProcessed(hook) {
		t.Error("the dropped status's hook is not marked processed")
	}
	if n := h.count(`SELECT count(*) FROM events WHERE type = 'message.status'`); n != 0 {
		t.Errorf("%d message.status events after an unknown status, want 0", n)
	}
}

// A provider answer that arrives after the sweep gave the send up as
// provider_unknown settles the message: sent with its wamid (message.status
// after the failed one), the API answers 201, and later statuses move it
// forward (docs/whatsapp.md).
func TestMetaHookLateAnswerSettlesProviderUnknown(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	held := h.holdSend("wamid.LATE", "we found your bag")
	id := h.sweepUnknown()
	// A status racing the late answer waits for it.
	hook := h.postHook(waChange("messages", waValue("statuses", waStatus("wamid.LATE", "delivered", at+400))))
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); !errors.Is(err, metahook.ErrStatusEarly) {
		t.Fatalf("status before the late answer: %v, want ErrStatusEarly", err)
	}

	ans := held.finish(t)
	if ans.status != 201 || ans.body["id"] != id || ans.body["status"] != "sent" {
		t.Fatalf("the late answer: %d %v, want 201 sent for %s", ans.status, ans.body, id)
	}
	got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
	d := got["delivery"].(map[string]any)
	if got["status"] != "sent" || d["provider_message_id"] != "wamid.LATE" || d["error"] != nil || d["failed_at"] != nil {
		t.Errorf("after the late answer: %v", got)
	}
	if err := h.Resolver.MetaHooks.Process(t.Context(), hook); err != nil {
		t.Fatal(err)
	}
	got = h.messageOf("wamid.LATE")
	if got["status"] != "delivered" || got["delivery"].(map[string]any)["delivered_at"] != stamp(at+400) {
		t.Errorf("after the delivered: %v", got)
	}
	h.wantSettledEvents(id)
}

// wantSettledEvents fails unless a message the sweep gave up as
// provider_unknown, then settled and delivered, has message.status failed,
// sent, delivered and no message.sent (its failure was announced already).
func (h *metaHooks) wantSettledEvents(id string) {
	h.T.Helper()
	var statuses []string
	if err := h.Store.DB.Select(&statuses, `SELECT envelope->'data'->>'status' FROM events
		WHERE type = 'message.status' AND envelope->'data'->>'id' = $1 ORDER BY created_at, id`, id); err != nil {
		h.T.Fatal(err)
	}
	if want := []string{"failed", "sent", "delivered"}; !slices.Equal(statuses, want) {
		h.T.Errorf("message.status events %v, want %v", statuses, want)
	}
	if n := h.count(`SELECT count(*) FROM events WHERE type = 'message.sent' AND envelope->'data'->>'id' = $1`, id); n != 0 {
		h.T.Errorf("%d message.sent events for a message announced failed, want 0", n)
	}
}

// sweepUnknown lets a held send outlive MSGSVC_PROVIDER_UNKNOWN_AFTER,
// runs the sweep, and returns the message it gave up as provider_unknown.
func (h *metaHooks) sweepUnknown() string {
	h.T.Helper()
	h.Clock.Advance(send.DefaultUnknownAfter + time.Second)
	if err := h.Resolver.Sends.SweepSending(h.T.Context()); err != nil {
		h.T.Fatal(err)
	}
	var id string
	if err := h.Store.DB.Get(&id, `SELECT id FROM messages WHERE livemode AND delivery->'error'->>'code' = 'provider_unknown'`); err != nil {
		h.T.Fatalf("the sweep gave nothing up as provider_unknown: %v", err)
	}
	return id
}
