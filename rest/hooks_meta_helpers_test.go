package rest_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// The WhatsApp number of the /hooks/meta tests: wa_main of ws_main,
// connected with these ids and token, its Graph API the stand-in.
const (
	hookSecret = "meta-app-secret"
	hookVerify = "verify-me"
	hookPNID   = "106540352242922"
	hookWABA   = "102290129340398"
	hookToken  = "EAAGhooktoken"
	// hookCustomer is the customer's wa_id.
	hookCustomer = "15551234567"
)

// metaHooks is the API with /hooks/meta configured and wa_main connected.
type metaHooks struct {
	*resttest.API
	graph *metatest.Server
}

func newMetaHooks(t testing.TB) *metaHooks {
	t.Helper()
	api := resttest.New(t, func(a *resttest.API) {
		a.Server.Meta = rest.MetaHooks{AppSecret: hookSecret, VerifyToken: hookVerify}
	})
	key, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	api.Reconfigure(func(c *resttest.Config) { c.Seal = key })
	graph := metatest.New(t)
	wa := whatsapp.New(graph.Config(5 * time.Second))
	api.Reconfigure(func(c *resttest.Config) { c.WhatsApp = wa })
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": wa} })
	row, err := credentials.Vault{Key: key}.Seal("ws_main", "wa_main", "whatsapp",
		channels.Credentials{PhoneNumberID: hookPNID, WABAID: hookWABA, AccessToken: hookToken}, resttest.Epoch)
	if err == nil {
		err = api.Store.UpsertAccountProvider(t.Context(), row)
	}
	if err != nil {
		t.Fatal(err)
	}
	dbExec(t, api, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode ON CONFLICT DO NOTHING`)
	return &metaHooks{API: api, graph: graph}
}

// signature is X-Hub-Signature-256 of raw under the app secret.
func signature(raw []byte) string {
	m := hmac.New(sha256.New, []byte(hookSecret))
	m.Write(raw)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// post sends raw bytes to /hooks/meta with a signature header ("" none).
func (h *metaHooks) post(raw []byte, sig string) (int, string) {
	h.T.Helper()
	req, err := http.NewRequest("POST", h.HTTP.URL+"/hooks/meta", bytes.NewReader(raw))
	if err != nil {
		h.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// deliver posts a payload signed as Meta signs it, wants 200, and runs the
// processing jobs of every stored hook.
func (h *metaHooks) deliver(payload map[string]any) {
	h.T.Helper()
	h.postHook(payload)
	h.process()
}

// postHook posts a payload signed as Meta signs it, wants 200, and returns
// the stored hook's id.
func (h *metaHooks) postHook(payload map[string]any) string {
	h.T.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		h.T.Fatal(err)
	}
	if status, body := h.post(raw, signature(raw)); status != 200 {
		h.T.Fatalf("POST /hooks/meta: %d %s", status, body)
	}
	var id string
	if err := h.Store.DB.Get(&id, `SELECT id FROM provider_hooks ORDER BY received_at DESC, id DESC LIMIT 1`); err != nil {
		h.T.Fatal(err)
	}
	return id
}

// process runs the job of every stored hook not yet processed, oldest
// first, as the queue would.
func (h *metaHooks) process() {
	h.T.Helper()
	var ids []string
	if err := h.Store.DB.Select(&ids, `SELECT id FROM provider_hooks WHERE processed_at IS NULL ORDER BY received_at, id`); err != nil {
		h.T.Fatal(err)
	}
	for _, id := range ids {
		if err := h.Resolver.MetaHooks.Process(h.T.Context(), id); err != nil {
			h.T.Fatalf("processing hook %s: %v", id, err)
		}
	}
}

// count runs a counting query.
func (h *metaHooks) count(query string, args ...any) int {
	h.T.Helper()
	var n int
	if err := h.Store.DB.Get(&n, query, args...); err != nil {
		h.T.Fatal(err)
	}
	return n
}

// messageOf returns GET /v1/messages/{id} (live) of the message a wamid
// belongs to.
func (h *metaHooks) messageOf(wamid string) map[string]any {
	h.T.Helper()
	var id string
	if err := h.Store.DB.Get(&id, `SELECT message_id FROM provider_messages WHERE provider_id = $1`, wamid); err != nil {
		h.T.Fatalf("no message has provider id %s: %v", wamid, err)
	}
	return h.Want(h.Do("GET", "/v1/messages/"+id, "live_all", nil), 200, "").Data()
}

// waChange is the envelope of one change of wa_main's WABA (channels.md 1.5).
func waChange(field string, value map[string]any) map[string]any {
	return map[string]any{"object": "whatsapp_business_account", "entry": []any{map[string]any{
		"id": hookWABA, "changes": []any{map[string]any{"field": field, "value": value}}}}}
}

// waValue is a messages value of wa_main's number.
func waValue(key string, items ...any) map[string]any {
	v := map[string]any{"messaging_product": "whatsapp",
		"metadata": map[string]any{"display_phone_number": "15550001111", "phone_number_id": hookPNID}}
	v[key] = items
	if key == "messages" {
		v["contacts"] = []any{map[string]any{"profile": map[string]any{"name": "Ana"}, "wa_id": hookCustomer}}
	}
	return v
}

// waMessage is an inbound message of the customer with its type's object.
func waMessage(wamid string, at int64, kind string, object any) map[string]any {
	m := map[string]any{"from": hookCustomer, "id": wamid, "timestamp": itoa(at), "type": kind}
	if object != nil {
		m[kind] = object
	}
	return m
}

// waStatus is a status of one of our wamids.
func waStatus(wamid, status string, at int64, errs ...any) map[string]any {
	s := map[string]any{"id": wamid, "recipient_id": "15550009005", "status": status, "timestamp": itoa(at)}
	if len(errs) > 0 {
		s["errors"] = errs
	}
	return s
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
