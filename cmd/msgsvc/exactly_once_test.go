package main

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// TestKilledServeMidSendSendsOnce kills serve (SIGKILL) while a live send's
// provider call is in flight: the Idempotency-Key is bound to the reserved
// message, so the client's retry on a new serve answers 202 with that
// message sending, at once and again after the key would count as
// abandoned, and the provider is never called a second time.
func TestKilledServeMidSendSendsOnce(t *testing.T) {
	graph := metatest.New(t)
	arrived := make(chan struct{}, 1)
	graph.Queue(metatest.Script{PathSuffix: "/messages", Delay: time.Minute,
		Match: func(metatest.Request) bool { arrived <- struct{}{}; return true }})
	in := newInstallation(t, map[string]string{"MSGSVC_META_GRAPH_URL": graph.Graph.URL, "MSGSVC_PROVIDER_TIMEOUT": "2m"})
	in.connectWhatsApp()
	first := in.serve("serve")
	key := fixtureKey(t, "key_live_all")
	body := map[string]any{"channel": "whatsapp", "to": "+15550401235", "whatsapp_account_id": "wa_main",
		"template": map[string]any{"name": "order_update", "language": "en_US", "parameters": []string{"K-9"}}}
	go func() { _, _, _ = in.call("POST", "/v1/messages", key, body, "Idempotency-Key", "kill-9") }()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the send never reached the provider")
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	in.serve("serve")
	sends := func() int {
		return len(graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") }))
	}
	var id any
	for i := range 2 {
		code, out, err := in.call("POST", "/v1/messages", key, body, "Idempotency-Key", "kill-9")
		data, _ := out["data"].(map[string]any)
		if err != nil || code != 202 || data["status"] != "sending" {
			t.Fatalf("retry %d after the kill: %d %v %v, want 202 sending", i, code, out, err)
		}
		if id == nil {
			id = data["id"]
		} else if data["id"] != id {
			t.Fatalf("retry answered message %v, then %v", id, data["id"])
		}
		// The key's request died long ago by the second retry.
		if _, err := in.store.DB.Exec(`UPDATE idempotency_keys SET created_at = created_at - interval '10 minutes'`); err != nil {
			t.Fatal(err)
		}
	}
	if n := sends(); n != 1 {
		t.Fatalf("the provider got %d sends, want 1", n)
	}
}
