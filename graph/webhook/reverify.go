package webhook

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// An endpoint whose handshake failed is verified again in the background,
// so that a receiver which installs its signing secret after the create
// call (or is deployed later) becomes active without another API call.
const (
	// reverifyFirst is the wait before the first background handshake,
	// and the shortest wait between two.
	reverifyFirst = 10 * time.Second
	// reverifyMax is the longest wait between two handshakes.
	reverifyMax = 10 * time.Minute
	// reverifyFor is how long after its URL was set an endpoint is tried;
	// past it, POST /v1/webhook-endpoints/{id}/verify or a PATCH of the
	// URL starts again.
	reverifyFor = 24 * time.Hour
	// reverifyBatch bounds the handshakes of one sweep.
	reverifyBatch = 16
)

// ReverifyDelay is the wait before the next background handshake of a URL
// unverified for age: a quarter of its age, from 10 s to 10 minutes, so a
// receiver fixed within minutes is verified within seconds, and a URL
// that stays wrong is not called more than every 10 minutes. It is whole
// seconds, as the clock has millisecond precision.
func ReverifyDelay(age time.Duration) time.Duration {
	return min(max((age/4).Truncate(time.Second), reverifyFirst), reverifyMax)
}

// verifyAndPlan runs the handshake, and when it fails plans the next
// background one, counting the attempts' window from since (when the URL
// was set or the caller last asked for a verification).
func (s *Service) verifyAndPlan(ctx context.Context, livemode bool, e *repo.WebhookEndpoint, since time.Time) *model.WebhookVerification {
	v := s.verifyEndpoint(ctx, livemode, e)
	if v.Verified {
		return v
	}
	now := s.Clock.Now()
	var next *time.Time
	if age := now.Sub(since); age < reverifyFor {
		at := now.Add(ReverifyDelay(age))
		next = &at
	}
	if err := s.Store.ScheduleWebhookReverify(context.WithoutCancel(ctx), e.ID, e.URL, since, livemode, next); err != nil {
		slog.Error("plan webhook re-verification", "endpoint", e.ID, "err", err)
	}
	return v
}

// ReverifyEndpoints runs the background handshakes that are due, a few at
// once. Several workers may run it together: each claims its endpoints.
func (s *Service) ReverifyEndpoints(ctx context.Context) error {
	now := s.Clock.Now()
	lease := now.Add(2*s.config().timeout() + reverifyFirst)
	due, err := s.Store.ClaimWebhookReverifications(ctx, now, lease, reverifyBatch)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, d := range due {
		wg.Go(func() {
			e, err := s.Store.WebhookEndpointAnyState(ctx, d.ID)
			if err != nil {
				slog.Warn("webhook re-verification", "endpoint", d.ID, "err", err)
				return
			}
			if e.URL != d.URL || e.VerifiedAt != nil || e.DeletedAt != nil || !e.Enabled {
				return
			}
			if s.verifyAndPlan(ctx, d.Livemode, e, d.UnverifiedSince).Verified {
				slog.Info("webhook endpoint verified in the background", "endpoint", e.ID)
			}
		})
	}
	wg.Wait()
	return nil
}
