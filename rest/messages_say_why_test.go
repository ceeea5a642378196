package rest_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A live send that cannot reach Meta says why: the provider's host and the
// cause (here a refused connection), never the token; a 190 says Meta's
// code and text, and later sends on the now needs_reauth number repeat it.
func TestLiveSendRefusalsNameTheCause(t *testing.T) {
	t.Parallel()
	h := newMetaHooks(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	_ = l.Close()
	reply := map[string]any{"conversation_id": "conv_live", "text": "hello"}

	good := h.Config.Adapters["whatsapp"]
	h.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"whatsapp": whatsapp.New(meta.Config{GraphURL: "http://" + dead, Timeout: 2 * time.Second})}
	})
	r := h.Want(sendMsg(h.API, "live_all", reply), 503, "channel_unavailable")
	if msg := errorMessage(r); !strings.Contains(msg, "the provider ("+dead+") could not be reached: connection refused") || strings.Contains(msg, hookToken) {
		t.Fatalf("unreachable Graph API: %q", msg)
	}

	h.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": good} })
	h.graph.Fail("/messages", 401, 190, 463, "Error validating access token: Session has expired on Friday, 27-Nov-26 03:00:00 PST.")
	r = h.Want(sendMsg(h.API, "live_all", reply), 503, "channel_unavailable")
	const why = "190/463: Error validating access token: Session has expired on Friday, 27-Nov-26 03:00:00 PST."
	if errorMessage(r) != why {
		t.Fatalf("a 190: %q", errorMessage(r))
	}
	calls := len(h.graph.Requests(nil))
	r = h.Want(sendMsg(h.API, "live_all", reply), 503, "channel_unavailable")
	if msg := errorMessage(r); !strings.Contains(msg, "rejected the access token of account wa_main") || !strings.Contains(msg, why) {
		t.Fatalf("a send on a needs_reauth number: %q", msg)
	}
	if len(h.graph.Requests(nil)) != calls {
		t.Fatal("a send on a needs_reauth number called Meta")
	}
}

// errorMessage is error.message of an error answer.
func errorMessage(r *resttest.Response) string {
	e, _ := r.Body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}
