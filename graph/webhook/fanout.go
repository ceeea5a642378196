package webhook

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// fanOutBatch is how many events one fan-out transaction takes.
const fanOutBatch = 500

// FanOut turns recorded events into deliveries, one per matching endpoint,
// and hands the deliveries that may go now to the queue. It works in
// partitions of workspaces (migration 0017), in parallel, each in seq
// order under a lock of its own: order matters within a conversation only,
// and a conversation is in one workspace, so no pass holds up another
// partition. A partition another pass holds is left to it, because that
// pass looks again after each commit and so sees every event committed
// before this call.
func (s *Service) FanOut(ctx context.Context) error {
	for {
		// The partitions are read after every round's locks are released:
		// anything committed since a batch was read is either seen here or
		// has a fan-out of its own coming.
		parts, err := s.Store.UnfannedPartitions(ctx)
		if err != nil || len(parts) == 0 {
			return err
		}
		var mu sync.Mutex
		var errs []error
		var skipped bool
		var wg sync.WaitGroup
		for _, p := range parts {
			wg.Go(func() {
				held, err := s.fanOutPartition(ctx, p)
				mu.Lock()
				defer mu.Unlock()
				errs, skipped = append(errs, err), skipped || held
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil || skipped {
			return err
		}
	}
}

// fanOutPartition fans out a partition's waiting events batch by batch. It
// reports true when another pass holds the partition.
func (s *Service) fanOutPartition(ctx context.Context, partition int) (held bool, err error) {
	for {
		n, locked, err := s.fanOutOnce(ctx, partition)
		if err != nil || !locked || n == 0 {
			return !locked, err
		}
	}
}

// fanOutOnce fans out one batch in one transaction: the deliveries and the
// events' leaving events_unfanned commit together, so a crash neither loses an event
// nor delivers it twice.
func (s *Service) fanOutOnce(ctx context.Context, partition int) (events int, locked bool, err error) {
	var ids []string
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if locked, err = q.TryLockFanOut(ctx, partition); err != nil || !locked {
			return err
		}
		batch, err := q.UnfannedEvents(ctx, partition, fanOutBatch)
		if err != nil || len(batch) == 0 {
			return err
		}
		events = len(batch)
		var workspaces []string
		seqs := make([]int64, len(batch))
		for i, ev := range batch {
			seqs[i] = ev.Seq
			workspaces = append(workspaces, ev.WorkspaceID)
		}
		endpoints, err := q.ActiveWebhookEndpoints(ctx, workspaces)
		if err != nil {
			return err
		}
		deliveries := s.matchDeliveries(batch, endpoints)
		if err := q.InsertWebhookDeliveries(ctx, deliveries); err != nil {
			return err
		}
		ids = make([]string, len(deliveries))
		for i := range deliveries {
			ids[i] = deliveries[i].ID
		}
		return q.MarkFannedOut(ctx, partition, seqs)
	})
	if err != nil || len(ids) == 0 {
		return events, locked, err
	}
	// Which deliveries may go now is read after the commit: a predecessor
	// that finishes meanwhile either committed before this read, which then
	// sees it done, or looks for its successor after this commit and finds
	// it (recordAttempt). Read inside the transaction, both could miss each
	// other and the successor would wait for the sweep.
	ready, err := s.Store.ReadyWebhookDeliveries(ctx, ids)
	if err != nil {
		slog.Warn("find the webhook deliveries due now; the sweep will hand them over", "err", err)
		return events, locked, nil
	}
	s.deliveriesDue(ctx, ready)
	return events, locked, nil
}

// matchDeliveries makes the deliveries of a batch of events, in event order.
func (s *Service) matchDeliveries(events []repo.Event, endpoints []repo.WebhookEndpoint) []repo.WebhookDelivery {
	now := s.Clock.Now()
	var out []repo.WebhookDelivery
	for i := range events {
		ev := &events[i]
		for j := range endpoints {
			e := &endpoints[j]
			if e.WorkspaceID != ev.WorkspaceID || !Matches(e, ev) {
				continue
			}
			out = append(out, repo.WebhookDelivery{
				ID: repo.NewID("whd_", now), WorkspaceID: ev.WorkspaceID, Livemode: ev.Livemode,
				EndpointID: e.ID, EventID: ev.ID, EventType: ev.Type, EventSeq: ev.Seq,
				Channel: ev.Channel, WebsiteID: ev.WebsiteID, ConversationID: ev.ConversationID,
				Status: "pending", NextAttemptAt: &now, CreatedAt: now,
			})
		}
	}
	return out
}

// deliveryDue hands a delivery to the queue. A failure is only logged: the
// delivery is in Postgres, and the sweep hands it over again.
func (s *Service) deliveryDue(ctx context.Context, id string, in time.Duration) {
	if s.Jobs == nil {
		return
	}
	if err := s.Jobs.DeliveryDue(context.WithoutCancel(ctx), id, max(in, 0)); err != nil {
		slog.Warn("enqueue webhook delivery; the sweep will retry", "delivery", id, "err", err)
	}
}

// deliveriesDue attempts deliveries due now in this process while it has
// places (attemptHere), and hands the others to the queue, several to a
// task (jobs.DeliverGroupSize). A failure is only logged, as in
// deliveryDue.
func (s *Service) deliveriesDue(ctx context.Context, ids []string) {
	ids = s.attemptHere(ids)
	if s.Jobs == nil || len(ids) == 0 {
		return
	}
	if err := s.Jobs.DeliveriesDue(context.WithoutCancel(ctx), ids); err != nil {
		slog.Warn("enqueue webhook deliveries; the sweep will retry", "deliveries", len(ids), "err", err)
	}
}

// attemptHere starts the attempts of deliveries due now in this worker
// process (Config.Here), each in a goroutine holding one of the process's
// places for attempts, as a task's would, for as many as there are free
// places; it returns the others, for the queue. An attempt here is what a
// task of one would make, chain included (AttemptDelivery); its error is
// logged, and the delivery is handed over again from Postgres (its retry,
// or the sweep), as a failed task's is. When Here ends (shutdown), an
// attempt in flight gives its lease back, as a task's does.
func (s *Service) attemptHere(ids []string) []string {
	cfg := s.config()
	if cfg.Here == nil {
		return ids
	}
	places := cfg.attemptPlaces()
	for i, id := range ids {
		select {
		case places <- struct{}{}:
		default:
			return ids[i:]
		}
		go func() {
			defer func() { <-places }()
			defer func() {
				if p := recover(); p != nil {
					slog.Error("webhook: attempt panicked; the sweep hands the delivery over again", "delivery", id, "panic", p)
				}
			}()
			if err := s.AttemptDelivery(cfg.Here, id); err != nil {
				slog.Warn("webhook: attempt; the delivery is handed over again from Postgres", "delivery", id, "err", err)
			}
		}()
	}
	return nil
}
