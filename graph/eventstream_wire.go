package graph

import "github.com/msgsvc/msgsvc/graph/eventstream"

// EventStream opens GET /v1/events/stream over the outbox, with the
// webhooks' retention.
func (r *Resolver) EventStream() *eventstream.Service {
	return &eventstream.Service{Store: r.Store, Expired: r.WebhookService().Expired}
}
