package rest_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// Exactly once to the customer (docs/api.md, Delivery guarantees), tried
// with live WhatsApp sends against the Graph API stand-in.

// sends counts the provider's /messages requests.
func (h *metaHooks) sends() int {
	return len(h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") }))
}

// eventsOf counts the events of a type about an object id.
func (h *metaHooks) eventsOf(typ, id string) int {
	return h.count(`SELECT count(*) FROM events WHERE type = $1 AND envelope->'data'->>'id' = $2`, typ, id)
}

// An ambiguous provider outcome (the connection dropped after Meta read the
// request, or an answer later than the timeout) is no refusal: 202 with the
// message sending, retries with the key answer from the message without a
// second provider call, and Meta's status (by biz_opaque_callback_data)
// settles it, announced once.
func TestAmbiguousOutcomeIsKeptSendingAndSettledByStatus(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"drop", "late"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			h := newMetaHooks(t)
			wa := whatsapp.New(h.graph.Config(300 * time.Millisecond))
			h.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": wa} })
			sc := metatest.Script{PathSuffix: "/messages", Drop: true}
			if fault == "late" {
				sc = metatest.Script{PathSuffix: "/messages", Delay: 3 * time.Second}
			}
			h.graph.Queue(sc)
			body := map[string]any{"conversation_id": "conv_live", "text": "your order shipped"}
			first := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "amb-1"), 202, "").Data()
			id, _ := first["id"].(string)
			if first["status"] != "sending" || id == "" {
				t.Fatalf("first answer %v, want the message sending", first)
			}
			for range 2 {
				again := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "amb-1"), 202, "")
				if again.Data()["id"] != id || again.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("retry answered %v (replayed %q), want message %s", again.Data(), again.Header.Get("Idempotent-Replayed"), id)
				}
			}
			if n := h.sends(); n != 1 {
				t.Fatalf("the provider got %d sends, want 1", n)
			}
			if n := h.eventsOf("message.sent", id); n != 0 {
				t.Fatalf("%d message.sent before any status, want 0", n)
			}
			at := resttest.Epoch.Unix() + 60
			st := waStatus("wamid.AMB_"+fault, "delivered", at)
			st["biz_opaque_callback_data"] = id
			h.deliver(waChange("messages", waValue("statuses", st)))
			got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
			d := got["delivery"].(map[string]any)
			if got["status"] != "delivered" || d["provider_message_id"] != "wamid.AMB_"+fault || d["error"] != nil {
				t.Fatalf("after the status: %v", got)
			}
			if s, st := h.eventsOf("message.sent", id), h.eventsOf("message.status", id); s != 1 || st != 1 {
				t.Fatalf("%d message.sent and %d message.status, want 1 and 1", s, st)
			}
			settled := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "amb-1"), 201, "").Data()
			if settled["id"] != id || settled["status"] != "delivered" || h.sends() != 1 {
				t.Fatalf("retry after the status: %v, %d sends", settled, h.sends())
			}
		})
	}
}

// With no status within MSGSVC_PROVIDER_UNKNOWN_AFTER the sweep fails the
// message as provider_unknown; a status after that still settles it.
func TestAmbiguousOutcomeWithoutStatusBecomesProviderUnknown(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	h.graph.Queue(metatest.Script{PathSuffix: "/messages", Drop: true})
	id, _ := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": "conv_live", "text": "hello"}), 202, "").Data()["id"].(string)
	h.Clock.Advance(send.DefaultUnknownAfter - time.Minute)
	if err := h.Resolver.Sends.SweepSending(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data(); got["status"] != "sending" {
		t.Fatalf("before MSGSVC_PROVIDER_UNKNOWN_AFTER the sweep settled it: %v", got)
	}
	h.Clock.Advance(2 * time.Minute)
	if err := h.Resolver.Sends.SweepSending(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
	if got["status"] != "failed" || got["delivery"].(map[string]any)["error"].(map[string]any)["code"] != "provider_unknown" {
		t.Fatalf("after the sweep: %v", got)
	}
	st := waStatus("wamid.LATE_STATUS", "read", resttest.Epoch.Unix()+3600)
	st["biz_opaque_callback_data"] = id
	h.deliver(waChange("messages", waValue("statuses", st)))
	if got := h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data(); got["status"] != "read" {
		t.Fatalf("a status after the give-up did not settle it forward: %v", got)
	}
	if h.sends() != 1 {
		t.Fatalf("%d sends, want 1", h.sends())
	}
}

// A retry while the first request is still calling the provider answers
// the message as it is (202 sending), not 409, and calls nothing; so does a
// retry after the key would count as abandoned (the serving process died).
func TestRetryDuringTheCallAnswersFromTheMessage(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	held := h.holdSendWithKey("wamid.HELD", "table for two", "held-1")
	body := map[string]any{"conversation_id": "conv_live", "text": "table for two"}
	during := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "held-1"), 202, "").Data()
	if during["status"] != "sending" {
		t.Fatalf("retry during the call: %v", during)
	}
	h.Clock.Advance(10 * time.Minute) // far past any abandonment
	if again := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "held-1"), 202, "").Data(); again["id"] != during["id"] {
		t.Fatalf("retry much later: %v, want %v", again, during["id"])
	}
	ans := held.finish(t)
	if ans.status != 201 || ans.body["id"] != during["id"] {
		t.Fatalf("the first request answered %d %v", ans.status, ans.body)
	}
	final := h.Want(sendMsg(h.API, "live_all", body, "Idempotency-Key", "held-1"), 201, "").Data()
	if final["id"] != during["id"] || final["status"] != "sent" || h.sends() != 1 {
		t.Fatalf("after the answer: %v, %d sends", final, h.sends())
	}
}

// A refused send leaves nothing behind: not the contact, not the
// conversation its reserve created, no event; and its answer is replayed
// under the key without a second provider call.
func TestRefusedSendLeavesNothing(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	contacts := h.count(`SELECT count(*) FROM contacts`)
	convs := h.count(`SELECT count(*) FROM conversations`)
	events := h.count(`SELECT count(*) FROM events`)
	for _, c := range []struct {
		code, status int
		want         string
	}{{131026, 400, "recipient_unreachable"}, {131000, 500, "channel_unavailable"}} {
		h.graph.Fail("/messages", c.status, c.code, 0, "")
		body := map[string]any{"channel": "whatsapp", "to": "+15550007001", "whatsapp_account_id": "wa_main",
			"template": tpl("order_update", "R")}
		key := "refused-" + c.want
		first := h.Do("POST", "/v1/messages", "live_all", body, "Idempotency-Key", key)
		if first.Code() != c.want {
			t.Fatalf("refusal %d answered %d %s", c.code, first.Status, first.Raw)
		}
		if first.Status == 503 && first.Header.Get("Retry-After") == "" {
			t.Error("503 channel_unavailable without Retry-After")
		}
		if n, m, e := h.count(`SELECT count(*) FROM contacts`), h.count(`SELECT count(*) FROM conversations`),
			h.count(`SELECT count(*) FROM events`); n != contacts || m != convs || e != events {
			t.Fatalf("after %s: contacts %d→%d, conversations %d→%d, events %d→%d", c.want, contacts, n, convs, m, events, e)
		}
		if n := h.count(`SELECT count(*) FROM send_creations`); n != 0 {
			t.Fatalf("%d send_creations rows left", n)
		}
		sent := h.sends()
		again := h.Do("POST", "/v1/messages", "live_all", body, "Idempotency-Key", key)
		if again.Status != first.Status || again.Code() != c.want || again.Header.Get("Idempotent-Replayed") != "true" || h.sends() != sent {
			t.Fatalf("retry of %s: %d %s replayed %q, %d sends (want %d)", c.want, again.Status, again.Code(),
				again.Header.Get("Idempotent-Replayed"), h.sends(), sent)
		}
	}
}

// A live send that creates a contact and a conversation announces them
// with message.sent once the provider took it, in that order.
func TestAcceptedSendAnnouncesItsCreations(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	body := map[string]any{"channel": "whatsapp", "to": "+15550007002", "whatsapp_account_id": "wa_main",
		"template": tpl("order_update", "S")}
	msg := h.Want(sendMsg(h.API, "live_all", body), 201, "").Data()
	var types []string
	if err := h.Store.DB.Select(&types, `SELECT type FROM events WHERE conversation_id = $1 OR
		(type = 'contact.created' AND envelope->'data'->>'id' = (SELECT contact_id FROM conversations WHERE id = $1))
		ORDER BY seq`, msg["conversation_id"]); err != nil {
		t.Fatal(err)
	}
	if want := "contact.created conversation.created message.sent"; strings.Join(types, " ") != want {
		t.Fatalf("events %v, want %s", types, want)
	}
}

// A customer's messages keep their order when the job of the earlier hook
// died: processing the later hook first processes the earlier one, so both
// are stored and announced as the customer sent them.
func TestInboundOrderSurvivesALostHookJob(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	first := h.postHook(waChange("messages", waValue("messages", waMessage("wamid.ORDER_1", at, "text", map[string]any{"body": "first"}))))
	second := h.postHook(waChange("messages", waValue("messages", waMessage("wamid.ORDER_2", at+1, "text", map[string]any{"body": "second"}))))
	// first's job died: only second's runs.
	if err := h.Resolver.MetaHooks.Process(t.Context(), second); err != nil {
		t.Fatal(err)
	}
	if !h.hookProcessed(first) || !h.hookProcessed(second) {
		t.Fatalf("processed: first %v, second %v; want both", h.hookProcessed(first), h.hookProcessed(second))
	}
	var texts []string
	if err := h.Store.DB.Select(&texts, `SELECT envelope->'data'->>'text' FROM events
		WHERE type = 'message.received' ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(texts, ",") != "first,second" {
		t.Fatalf("message.received in order %v, want first,second", texts)
	}
	// first's job, run at last, changes nothing.
	if err := h.Resolver.MetaHooks.Process(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	if n := h.count(`SELECT count(*) FROM messages WHERE text IN ('first', 'second')`); n != 2 {
		t.Fatalf("%d messages, want 2", n)
	}
}

// A confirm that meets database connections Postgres closed (a failover, a
// pooler's restart) after Meta took the message goes through: 201 sent,
// never a refusal, and the key answers it.
func TestConfirmSurvivesClosedConnections(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	held := h.holdSendWithKey("wamid.TERMINATED", "see you at 8", "terminated-1")
	var db string
	if err := h.Store.DB.Get(&db, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("postgres", repotest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed int
	if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()`, db).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminated %d connections (%v), want some", killed, err)
	}
	ans := held.finish(t)
	if ans.status != 201 || ans.body["status"] != "sent" {
		t.Fatalf("the send answered %d %v, want 201 sent", ans.status, ans.body)
	}
	again := h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": "conv_live", "text": "see you at 8"},
		"Idempotency-Key", "terminated-1"), 201, "").Data()
	if again["id"] != ans.body["id"] || h.sends() != 1 {
		t.Fatalf("the retry answered %v, %d sends", again, h.sends())
	}
}

// A hook that fails on every attempt is given up after
// metahook.MaxHookAttempts, with its last error, so it holds up none of
// its customer's later hooks; a status still waiting for its send is never
// given up that way.
func TestAHookThatAlwaysFailsIsGivenUp(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	at := resttest.Epoch.Unix()
	// The number's credentials no longer open: every message hook fails.
	dbExec(t, h.API, `UPDATE account_providers SET sealed = 'not-sealed' WHERE account_id = 'wa_main'`)
	bad := h.postHook(waChange("messages", waValue("messages", waMessage("wamid.POISON", at, "text", map[string]any{"body": "poison"}))))
	for i := 1; i < metahook.MaxHookAttempts; i++ {
		if err := h.Resolver.MetaHooks.Process(t.Context(), bad); err == nil {
			t.Fatalf("attempt %d went through", i)
		}
		if h.hookProcessed(bad) {
			t.Fatalf("given up after %d attempts, want %d", i, metahook.MaxHookAttempts)
		}
	}
	if err := h.Resolver.MetaHooks.Process(t.Context(), bad); err != nil || !h.hookProcessed(bad) {
		t.Fatalf("the last attempt: %v, processed %v; want given up", err, h.hookProcessed(bad))
	}
	if n := h.count(`SELECT count(*) FROM provider_hooks WHERE id = $1 AND last_error <> ''`, bad); n != 1 {
		t.Fatal("the given-up hook keeps no error")
	}
	// A later hook of the same customer is not held up by it.
	newMetaHooksCredentials(t, h)
	later := h.postHook(waChange("messages", waValue("messages", waMessage("wamid.AFTER", at+1, "text", map[string]any{"body": "after"}))))
	if err := h.Resolver.MetaHooks.Process(t.Context(), later); err != nil || !h.hookProcessed(later) {
		t.Fatalf("the later hook: %v, processed %v", err, h.hookProcessed(later))
	}
}

// newMetaHooksCredentials seals wa_main's credentials again, as newMetaHooks did.
func newMetaHooksCredentials(t *testing.T, h *metaHooks) {
	t.Helper()
	row, err := credentials.Vault{Key: h.Resolver.Seal}.Seal("ws_main", "wa_main", "whatsapp",
		channels.Credentials{PhoneNumberID: hookPNID, WABAID: hookWABA, AccessToken: hookToken}, resttest.Epoch)
	if err == nil {
		err = h.Store.UpsertAccountProvider(t.Context(), row)
	}
	if err != nil {
		t.Fatal(err)
	}
}
