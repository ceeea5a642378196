package webhook

import (
	"context"
	"errors"
	"sync"
)

// MaxAttemptsInFlight bounds the deliveries one process attempts at once,
// over all the tasks its worker slots run. A task carries up to
// jobs.DeliverGroupSize (10) deliveries, all attempted at the same time, so
// 10 slots could otherwise have 100 requests in flight. Twenty: the
// process's claims and records go to Postgres in batches (repo.batcher), so
// an attempt in flight holds no connection of its own; with 10, deliveries
// ended about a second after a 5 s burst of sends on two cores, with 20 a
// few tenths. It is also the idle connections per host the HTTP client
// keeps (httpClient), so connections to a busy endpoint are reused, not
// opened and dropped. While every place is taken, a delivery waits for one,
// and its task in its slot. A chain (AttemptDelivery) holds one place
// throughout.
const MaxAttemptsInFlight = 20

// attemptPlaces returns the process's places for attempts in flight: one
// set per Config, and a process has one Config, as it has one httpClient.
func (c *Config) attemptPlaces() chan struct{} {
	c.placesOnce.Do(func() { c.places = make(chan struct{}, MaxAttemptsInFlight) })
	return c.places
}

// AttemptDeliveries attempts each delivery as AttemptDelivery does, all at
// the same time within MaxAttemptsInFlight, so a slow endpoint holds up none
// of the others; it returns when all are done. The error of one stops none
// of the others and is returned with theirs, each naming its delivery, so
// the task's log line (jobs.Observe) shows every one, as it showed the one
// of a task of one. A delivery whose attempt has not begun when ctx ends
// (shutdown) is handed back to the queue unattempted, as AttemptDelivery
// hands back the rest of a chain.
func (s *Service) AttemptDeliveries(ctx context.Context, ids []string) error {
	places := s.config().attemptPlaces()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			select {
			case places <- struct{}{}:
				defer func() { <-places }()
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				s.deliveryDue(ctx, id, 0)
				return
			}
			errs[i] = s.AttemptDelivery(ctx, id)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
