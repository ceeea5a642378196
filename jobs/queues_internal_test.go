package jobs

import "testing"

// Webhook deliveries have a queue of their own that workers take from
// first, and every worker serves both queues.
func TestWorkersTakeWebhookDeliveriesFirst(t *testing.T) {
	cfg := serverConfig(10, "q")
	if len(cfg.Queues) != 2 || cfg.Queues["q"] < 1 || cfg.Queues[WebhookQueue("q")] <= cfg.Queues["q"] {
		t.Errorf("queues %v: want q and %s, the latter weighted higher", cfg.Queues, WebhookQueue("q"))
	}
	if cfg.StrictPriority {
		t.Error("strict priority would starve the other tasks while deliveries pile up")
	}
}
