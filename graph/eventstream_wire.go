package graph

import "github.com/msgsvc/msgsvc/graph/eventstream"

// EventStream opens GET /v1/events/stream over the outbox, with the
// webhooks' retention, through StreamHorizon when set.
func (r *Resolver) EventStream() *eventstream.Service {
	var store eventstream.Store = r.Store
	if r.StreamHorizon != nil {
		store = r.StreamHorizon
	}
	return &eventstream.Service{Store: store, Expired: r.WebhookService().Expired}
}
