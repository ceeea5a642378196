package webhook

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// RecoveryQueue hands a recovery to the job queue (jobs.Client is one).
type RecoveryQueue interface {
	RecoveryDue(ctx context.Context, recoveryID string) error
}

// recoveryBatch is how many deliveries one transaction of a recovery
// replays.
const recoveryBatch = 100

// recoveryStale is how long a running recovery may go without progress
// before the sweep hands it a task again.
const recoveryStale = time.Minute

// RecoverDeliveries starts the replay, in the background, of every failed
// delivery of an endpoint in the caller's mode created from since to now,
// one replay per event (Replay's: same event id, replay_of set). The
// answer counts them; Recovery follows the progress.
func (s *Service) RecoverDeliveries(ctx context.Context, endpointID string, since time.Time) (*model.WebhookRecovery, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	if since.After(now) {
		return nil, apierr.New(apierr.InvalidRequest, "since must not be in the future.")
	}
	e, err := s.endpointOf(ctx, a, endpointID)
	if err != nil {
		return nil, err
	}
	if err := takesEvents(e, "replays"); err != nil {
		return nil, err
	}
	r := &repo.WebhookRecovery{ID: repo.NewID("whr_", now), WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		EndpointID: e.ID, Since: since, Until: now, State: "running", CreatedAt: now, UpdatedAt: now}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		var err error
		if r.Total, err = q.CountRecoverableDeliveries(ctx, r, s.expiredBefore()); err != nil {
			return err
		}
		if r.Total == 0 {
			r.State, r.FinishedAt = "done", &now
		}
		return q.InsertWebhookRecovery(ctx, r)
	})
	if err != nil {
		return nil, err
	}
	if r.State == "running" {
		s.recoveryDue(ctx, r.ID)
	}
	return toRecovery(r), nil
}

// Recovery is a recovery of the caller's workspace and mode, with its
// progress.
func (s *Service) Recovery(ctx context.Context, id string) (*model.WebhookRecovery, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.Store.WebhookRecovery(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.RecoveryNotFound, "webhook recovery", id)
	}
	return toRecovery(r), nil
}

func toRecovery(r *repo.WebhookRecovery) *model.WebhookRecovery {
	return &model.WebhookRecovery{ID: r.ID, Object: "webhook_recovery", EndpointID: r.EndpointID,
		Since: model.NewTimestamp(r.Since), State: r.State, Total: r.Total, Done: r.Done,
		CreatedAt: model.NewTimestamp(r.CreatedAt), FinishedAt: model.TimestampPtr(r.FinishedAt)}
}

// expiredBefore is the time before which events are past retention.
func (s *Service) expiredBefore() time.Time { return s.Clock.Now().Add(-s.config().retention()) }

// recoveryDue hands a recovery to the queue; a failure is only logged:
// the sweep (SweepRecoveries) hands it over again.
func (s *Service) recoveryDue(ctx context.Context, id string) {
	if s.Recoveries == nil {
		return
	}
	if err := s.Recoveries.RecoveryDue(context.WithoutCancel(ctx), id); err != nil {
		slog.Warn("enqueue webhook recovery; the sweep will retry", "recovery", id, "err", err)
	}
}

// RunRecovery replays a recovery's deliveries, a batch a transaction,
// until none is left: the task of a recovery. Running it twice is
// harmless: each batch goes on after the last one replayed.
func (s *Service) RunRecovery(ctx context.Context, id string) error {
	for {
		more, err := s.recoverBatch(ctx, id)
		if err != nil || !more || ctx.Err() != nil {
			return err
		}
	}
}

// recoverBatch replays the next batch of a recovery and says whether more
// may follow. A recovery whose endpoint was switched off or deleted stops.
func (s *Service) recoverBatch(ctx context.Context, id string) (bool, error) {
	var due []string
	var more bool
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		r, err := q.LockWebhookRecovery(ctx, id)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil || r.State != "running" {
			return err
		}
		now := s.Clock.Now()
		r.UpdatedAt = now
		e, err := q.WebhookEndpointAnyState(ctx, r.EndpointID)
		if err != nil {
			return err
		}
		if e.DeletedAt != nil || takesEvents(e, "replays") != nil {
			r.State, r.FinishedAt = "stopped", &now
			return q.UpdateWebhookRecovery(ctx, r)
		}
		rows, err := q.RecoverableDeliveries(ctx, r, s.expiredBefore(), recoveryBatch)
		if err != nil {
			return err
		}
		for i := range rows {
			replay := newReplay(&rows[i], now)
			if err := q.InsertWebhookDelivery(ctx, replay); err != nil {
				return err
			}
			due = append(due, replay.ID)
		}
		r.Done += len(rows)
		if len(rows) > 0 {
			last := rows[len(rows)-1]
			r.AfterCreatedAt, r.AfterID = &last.CreatedAt, &last.ID
		}
		if more = len(rows) == recoveryBatch; !more {
			// What the count found and what was replayed differ only when
			// deliveries went meanwhile (retention): the total is what was.
			r.State, r.FinishedAt, r.Total = "done", &now, r.Done
		}
		return q.UpdateWebhookRecovery(ctx, r)
	})
	if err != nil {
		return false, err
	}
	s.deliveriesDue(ctx, due)
	return more, nil
}

// SweepRecoveries hands the queue, or runs here without one, the
// recoveries that made no progress for a while: their task was lost.
func (s *Service) SweepRecoveries(ctx context.Context) error {
	ids, err := s.Store.StaleWebhookRecoveries(ctx, s.Clock.Now().Add(-recoveryStale), 100)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if s.Recoveries != nil {
			s.recoveryDue(ctx, id)
			continue
		}
		if err := s.RunRecovery(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// newReplay is a new delivery of a delivery's event to its endpoint, due
// now: same event id, replay_of set, unordered.
func newReplay(d *repo.WebhookDelivery, now time.Time) *repo.WebhookDelivery {
	return &repo.WebhookDelivery{
		ID: repo.NewID("whd_", now), WorkspaceID: d.WorkspaceID, Livemode: d.Livemode, EndpointID: d.EndpointID,
		EventID: d.EventID, EventType: d.EventType, EventSeq: d.EventSeq, Channel: d.Channel, WebsiteID: d.WebsiteID,
		ReplayOf: &d.ID, Status: "pending", NextAttemptAt: &now, CreatedAt: now,
	}
}
