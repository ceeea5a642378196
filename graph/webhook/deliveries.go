package webhook

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

var deliveryStatuses = []string{"pending", "retrying", "succeeded", "failed"}

func webhookDeliveryPosition(d repo.WebhookDelivery) repo.Position {
	return repo.Position{At: d.CreatedAt, ID: d.ID}
}

// ListDeliveries is GET /v1/webhook-deliveries, newest first.
func (s *Service) ListDeliveries(ctx context.Context, filter *model.WebhookDeliveryFilter, limit *int, after *string) (*model.WebhookDeliveryPage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.Cursors.Page("webhook_deliveries", limit, after)
	if err != nil {
		return nil, err
	}
	var f repo.WebhookDeliveryFilter
	if filter != nil {
		if status := filter.Status; status != nil && !slices.Contains(deliveryStatuses, *status) {
			return nil, apierr.New(apierr.InvalidRequest, "status must be pending, retrying, succeeded or failed.")
		}
		f.EndpointID, f.Status = filter.EndpointID, filter.Status
	}
	rows, err := s.Store.WebhookDeliveries(ctx, a.Scope(), f, p)
	if err != nil {
		return nil, err
	}
	rows, more, next := cursor.Trim(s.Cursors, "webhook_deliveries", rows, p, webhookDeliveryPosition)
	return &model.WebhookDeliveryPage{Items: view.Map(rows, toWebhookDelivery), HasMore: more, NextCursor: next}, nil
}

// Replay sends a delivery's event again as a new delivery
// with the same event id. Replays are not ordered: the caller asked for this
// one now.
func (s *Service) Replay(ctx context.Context, id string) (*model.WebhookDelivery, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.Store.WebhookDelivery(ctx, a.Scope(), id)
	if err != nil {
		return nil, view.NotFound(err, apierr.DeliveryNotFound, "webhook delivery", id)
	}
	if d.EventType == EventEndpointTest {
		return nil, apierr.New(apierr.InvalidRequest, "A test event is sent once and never again; send another test event instead.")
	}
	e, err := s.Store.WebhookEndpointAnyState(ctx, d.EndpointID)
	if err != nil {
		return nil, err
	}
	state := endpointStatus(e)
	if e.DeletedAt != nil {
		state = "deleted"
	}
	if state != "active" {
		return nil, apierr.New(apierr.EndpointDisabled, "Webhook endpoint %s is %s; only an active endpoint takes replays.", e.ID, state)
	}
	ev, err := s.Store.Event(ctx, a.Scope(), d.EventID)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && s.Expired(ev.CreatedAt)) {
		return nil, apierr.New(apierr.EventExpired, "Event %s is past the %s retention period.", d.EventID, s.config().retention())
	}
	if err != nil {
		return nil, err
	}
	replay := newReplay(d, s.Clock.Now())
	replay.EventSeq, replay.Channel, replay.WebsiteID = ev.Seq, ev.Channel, ev.WebsiteID
	if err := s.Store.InsertWebhookDelivery(ctx, replay); err != nil {
		return nil, err
	}
	s.deliveryDue(ctx, replay.ID, 0)
	return toWebhookDelivery(replay), nil
}

// sweepBatch is how many deliveries one sweep query hands over.
const sweepBatch = 500

// SweepDeliveries hands the queue every delivery whose task looks lost:
// Redis lost it, a worker died holding it, or an enqueue failed. It runs
// periodically; Postgres, not the queue, knows what is owed.
func (s *Service) SweepDeliveries(ctx context.Context) error {
	return s.sweepDeliveries(ctx, s.config().SweepGrace)
}

// ResweepDeliveries hands the queue every due delivery no attempt holds,
// without waiting for the grace: the queue was lost or changed hands (a
// Redis failover or restart), so their tasks may be gone. A delivery whose
// task survived gets a second one, which finds it claimed or done.
func (s *Service) ResweepDeliveries(ctx context.Context) error {
	return s.sweepDeliveries(ctx, 0)
}

func (s *Service) sweepDeliveries(ctx context.Context, grace time.Duration) error {
	for {
		due, err := s.Store.SweepWebhookDeliveries(ctx, s.Clock.Now(), grace, sweepBatch)
		if err != nil {
			return err
		}
		ids := make([]string, len(due))
		for i, d := range due {
			ids[i] = d.ID
		}
		s.deliveriesDue(ctx, ids)
		if len(due) < sweepBatch {
			return nil
		}
	}
}

// PurgeExpiredEvents deletes events older than the retention period, and
// with them their deliveries.
func (s *Service) PurgeExpiredEvents(ctx context.Context) error {
	before := s.Clock.Now().Add(-s.config().retention())
	for {
		n, err := s.Store.PurgeEvents(ctx, before, 1000)
		if err != nil || n < 1000 {
			return err
		}
	}
}
