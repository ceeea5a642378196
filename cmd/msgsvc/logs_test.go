package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/graph/credentials"
)

// sensitiveField says whether a fixture field holds a credential or a
// message body: what a log must never show.
func sensitiveField(name string) bool {
	for _, s := range []string{"secret", "token", "password", "credential", "api_key", "signature", "text", "body", "html", "content"} {
		if strings.Contains(strings.ToLower(name), s) {
			return true
		}
	}
	return false
}

// connectWhatsApp gives the fixture's WhatsApp account wa_main provider
// credentials, sealed as the binary seals them (the key derived from
// MSGSVC_SECRET), and live copies of the sandbox templates; it returns the
// access token.
func (in *installation) connectWhatsApp() string {
	in.t.Helper()
	cfg, err := loadConfig(func(name string) string { return in.env[name] })
	if err != nil {
		in.t.Fatal(err)
	}
	token := "EAAG-live-access-token-of-the-log-test"
	row, err := credentials.Vault{Key: cfg.Seal}.Seal("ws_main", "wa_main", "whatsapp",
		channels.Credentials{AccessToken: token, PhoneNumberID: "1065403522400", WABAID: "1022901293400"}, time.Now())
	if err == nil {
		err = in.store.UpsertAccountProvider(in.t.Context(), row)
	}
	if err == nil {
		_, err = in.store.DB.Exec(`INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name,
			language, category, status, body) SELECT id || '_live', workspace_id, true, whatsapp_account_id, name,
			language, category, status, body FROM templates WHERE NOT livemode ON CONFLICT DO NOTHING`)
	}
	if err != nil {
		in.t.Fatal(err)
	}
	return token
}

// TestProductionLogsShowNoSecretTokenOrBody runs msgsvc with production's
// JSON logs (in development mode: production refuses the plain-http local
// webhook receiver the test delivers to), drives requests with the fixture's
// keys, a live WhatsApp send with provider credentials, an inbound message and replies, a webhook endpoint with its own
// secret and a roll of it, a wrong key, GraphQL and the queue dashboard
// with the admin token, until webhooks have been delivered; then it reads
// every line the process wrote: each is JSON, the request and job lines are
// there, and no secret, key, token, signature or message body of the
// fixture or of the run appears anywhere.
func TestProductionLogsShowNoSecretTokenOrBody(t *testing.T) {
	graph := metatest.New(t)
	graph.SetTemplates("1022901293400", metatest.Template("order_update", "en_US", "APPROVED", "UTILITY", "Order {{1}} shipped"))
	graph.SetOnboarding("1022901293400", "ONBOARDED")
	in := newInstallation(t, map[string]string{"MSGSVC_LOG_FORMAT": "json", "MSGSVC_PUBLIC_URL": "https://chat.example.com", "MSGSVC_META_GRAPH_URL": graph.Graph.URL,
		"MSGSVC_META_APP_SECRET": "meta-app-secret-for-the-log-test", "MSGSVC_META_VERIFY_TOKEN": "meta-verify-token-for-the-log-test"})
	accessToken := in.connectWhatsApp()
	p := in.serve("run")
	testKey, readKey, msgKey := fixtureKey(t, "key_test_all"), fixtureKey(t, "key_conv_read"), fixtureKey(t, "key_msg_read")
	hookSecret := newWebhookSecret(1)
	rc := newReceiver(t, hookSecret)
	secrets := []string{hookSecret, accessToken}
	for _, name := range []string{"MSGSVC_SECRET", "MSGSVC_ADMIN_TOKEN", "MSGSVC_META_APP_SECRET", "MSGSVC_META_VERIFY_TOKEN"} {
		secrets = append(secrets, in.env[name])
	}

	// A live WhatsApp template send: the provider gets the access token.
	in.must(201, "POST", "/v1/messages", fixtureKey(t, "key_live_all"), map[string]any{"channel": "whatsapp",
		"to": "+15550401234", "whatsapp_account_id": "wa_main",
		"template": map[string]any{"name": "order_update", "language": "en_US", "parameters": []string{"A-1001"}}})
	if calls := graph.Requests(func(r metatest.Request) bool { return r.Bearer() == accessToken }); len(calls) == 0 {
		t.Fatal("the live send never reached the provider with its token")
	}

	ep := in.must(201, "POST", "/v1/webhook-endpoints", testKey, map[string]any{
		"url": rc.URL, "events": []string{"*"}, "testEvents": true, "secret": hookSecret})
	if v, _ := ep["verification"].(map[string]any); v["verified"] != true {
		t.Fatalf("endpoint not verified: %v", ep)
	}
	inbound := "inbound body: my card ends 4242, call me at home"
	conv := in.inbound(testKey, "+15550009876", inbound)
	secrets = append(secrets, inbound)
	for i, text := range []string{"reply body one: your code is 918273", "reply body two: password hunter2-xyz"} {
		in.must(201, "POST", "/v1/messages", testKey, map[string]any{"conversation_id": conv, "text": text},
			"Idempotency-Key", "log-test-"+string(rune('a'+i)))
		secrets = append(secrets, text)
	}
	in.must(200, "GET", "/v1/conversations/"+conv+"/messages", msgKey, nil)
	in.must(200, "GET", "/v1/conversations?channel=whatsapp", readKey, nil)
	rolled := in.must(200, "POST", "/v1/webhook-endpoints/"+ep["id"].(string)+"/roll-secret", testKey, map[string]any{"grace_hours": 1})
	secrets = append(secrets, rolled["secret"].(string))
	wrongKey := "svc_test_NotAKeyButLooksLikeOne000000000001"
	if code, _, err := in.call("GET", "/v1/channels", wrongKey, nil); err != nil || code != 401 {
		t.Fatalf("wrong key: %d %v", code, err)
	}
	secrets = append(secrets, wrongKey)
	if code, _, err := in.call("POST", "/graphql", in.env["MSGSVC_ADMIN_TOKEN"], map[string]any{"query": "{ __typename }"},
		"Msgsvc-Workspace", "ws_main", "Msgsvc-Livemode", "false"); err != nil || code != 200 {
		t.Fatalf("graphql: %d %v", code, err)
	}
	if code, _, err := in.call("GET", "/admin/queues/api/queues", in.env["MSGSVC_ADMIN_TOKEN"], nil); err != nil || code != 200 {
		t.Fatalf("queue dashboard: %d %v", code, err)
	}
	// The inbound message, both replies and their status changes reach
	// the receiver.
	eventually(t, 30*time.Second, "webhook deliveries", func() (bool, string) {
		n := len(rc.received())
		return n >= 5, strings.Repeat("|", n)
	})
	p.terminate(t)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}

	logs := p.logs.String()
	var requests, jobs int
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("a log line that is not JSON: %s", line)
			continue
		}
		switch entry["msg"] {
		case "request":
			if entry["request_id"] == nil || entry["route"] == nil || entry["status"] == nil {
				t.Errorf("request line without its fields: %s", line)
			}
			requests++
		case "job":
			jobs++
		}
	}
	// Few tasks log a line of their own: webhook attempts run in the
	// fan-out's process and ai:dispatch's successes are DEBUG.
	if requests < 10 || jobs < 1 {
		t.Errorf("%d request lines and %d job lines: the run did not log what it did", requests, jobs)
	}

	secrets = append(secrets, fixtureStrings(t, func(path []string, v string) bool {
		return len(v) >= 6 && len(path) > 0 && sensitiveField(path[len(path)-1])
	})...)
	rc.mu.Lock()
	for _, sig := range rc.signatures {
		for _, part := range strings.Split(sig, ",") {
			if v, ok := strings.CutPrefix(part, "v1="); ok {
				secrets = append(secrets, v)
			}
		}
	}
	rc.mu.Unlock()
	if len(secrets) < 20 {
		t.Fatalf("only %d secrets to look for", len(secrets))
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the logs show %q…", s[:6])
		}
	}
}
