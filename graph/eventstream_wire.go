package graph

import "github.com/msgsvc/msgsvc/graph/eventstream"

// EventStream opens GET /v1/events/stream over the outbox, with the
// webhooks' retention. The streams of the process share one horizon read
// per poll (on the wall clock: it paces polling, no rule of the data).
func (r *Resolver) EventStream() *eventstream.Service {
	r.horizonOnce.Do(func() {
		r.horizon = &eventstream.SharedHorizon{Store: r.Store, Every: eventstream.DefaultPoll}
	})
	return &eventstream.Service{Store: r.horizon, Expired: r.WebhookService().Expired}
}
