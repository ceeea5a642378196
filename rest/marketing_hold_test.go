package rest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// scriptedAdapter refuses sends with an error while refuse is set and
// accepts them otherwise, counting the calls.
type scriptedAdapter struct {
	refuse *meta.Error
	calls  atomic.Int32
}

func (a *scriptedAdapter) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	a.calls.Add(1)
	if a.refuse != nil {
		return nil, a.refuse.Refusal()
	}
	return acceptingAdapter{}.Send(ctx, m)
}

// After Meta's 131049 (the customer's per-user marketing limit, which
// applies to marketing templates only) that customer's marketing sends are
// held for 60 s; a utility template or free text still goes out at once,
// and marketing goes again once the hold ends (on the injected clock).
func TestA131049HoldsOnlyMarketingToThatCustomer(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	connectProviders(api)
	wa := &scriptedAdapter{refuse: &meta.Error{HTTPStatus: http.StatusBadRequest, Code: 131049,
		Message: "This message was not delivered to maintain healthy ecosystem engagement."}}
	api.Reconfigure(func(c *resttest.Config) { c.Adapters = map[string]channels.Adapter{"whatsapp": wa} })
	marketing := map[string]any{"conversation_id": "conv_live", "template": tpl("spring_sale", "20%")}
	api.Want(sendMsg(api, "live_all", marketing), 429, "channel_rate_limited")

	wa.refuse = nil
	api.Want(sendMsg(api, "live_all", map[string]any{"conversation_id": "conv_live", "template": tpl("order_update", "A1")}), 201, "")
	api.Want(sendMsg(api, "live_all", map[string]any{"conversation_id": "conv_live", "text": "hello"}), 201, "")
	if wa.calls.Load() != 3 {
		t.Errorf("%d provider calls, want 3: a non-marketing send was held after a 131049", wa.calls.Load())
	}
	r := api.Want(sendMsg(api, "live_all", marketing), 429, "channel_rate_limited")
	if wa.calls.Load() != 3 || r.Header.Get("Retry-After") != "60" {
		t.Errorf("a held marketing send reached the provider (%d calls) or has Retry-After %q, want 60",
			wa.calls.Load(), r.Header.Get("Retry-After"))
	}
	api.Clock.Advance(61 * time.Second)
	api.Want(sendMsg(api, "live_all", marketing), 201, "")
}
