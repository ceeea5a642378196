package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/egress"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// EventEndpointTest is the portal's Send test event: sent to one endpoint
// at once, once, never retried; no endpoint subscribes to it.
const EventEndpointTest = "endpoint.test"

// testEventEvery is how often an endpoint may be sent a test event.
const testEventEvery = 10 * time.Second

// Outcomes of a test event.
const (
	TestDelivered     = "delivered"
	TestRefused       = "refused"
	TestUnreachable   = "unreachable"
	TestTimedOut      = "timed_out"
	TestTLSError      = "tls_error"
	TestURLNotAllowed = "url_not_allowed"
)

// testEventWait is how long before another test event may go to an
// endpoint whose last one went at last (nil: never); zero when it may now.
func testEventWait(last *time.Time, now time.Time) time.Duration {
	if last == nil {
		return 0
	}
	return max(0, last.Add(testEventEvery).Sub(now))
}

// testOutcome classifies what an endpoint did with a test event.
func testOutcome(a answer) string {
	var refused *refusedError
	var guarded *egress.Error
	switch {
	case a.Err == nil && a.Status >= 200 && a.Status < 300:
		return TestDelivered
	case a.Err == nil:
		return TestRefused
	case errors.As(a.Err, &refused), errors.As(a.Err, &guarded):
		return TestURLNotAllowed
	case egress.IsTLS(a.Err):
		return TestTLSError
	case errors.Is(a.Err, context.DeadlineExceeded), isTimeout(a.Err):
		return TestTimedOut
	}
	return TestUnreachable
}

// SendTestEvent sends one signed endpoint.test event to an endpoint of the
// caller's workspace, in the caller's mode, and answers its outcome. It is
// sent once, here, and never retried; it is recorded as a finished
// delivery with its attempt, listed among the endpoint's. An endpoint gets
// at most one every 10 seconds (429 rate_limited with Retry-After).
func (s *Service) SendTestEvent(ctx context.Context, endpointID string) (*model.WebhookTestResult, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	var e *repo.WebhookEndpoint
	if err := s.Store.InTx(ctx, func(q repo.Queries) error {
		if e, err = lockEndpoint(ctx, q, a, endpointID); err != nil {
			return err
		}
		if err := takesEvents(e, "test events"); err != nil {
			return err
		}
		last, err := q.LastWebhookTest(ctx, e.ID)
		if err != nil {
			return err
		}
		if wait := testEventWait(last, now); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			return &apierr.Error{Code: apierr.RateLimited, RetryAfter: time.Duration(secs) * time.Second,
				Message: fmt.Sprintf("Webhook endpoint %s was sent a test event less than %s ago; send another in %d s.", e.ID, testEventEvery, secs)}
		}
		return q.SetLastWebhookTest(ctx, e.ID, now)
	}); err != nil {
		return nil, err
	}
	ev, body, err := testEvent(a, e, now)
	if err != nil {
		return nil, err
	}
	secrets, err := s.signingSecrets(e, now)
	if err != nil {
		return nil, err
	}
	cfg := s.config()
	o := outcome{answer: cfg.post(ctx, e.URL, body, webhooksig.Header(now, body, secrets...)), at: now}
	result := &model.WebhookTestResult{Outcome: testOutcome(o.answer), LatencyMs: int(o.Latency.Milliseconds()), EventID: ev.ID}
	if o.Status != 0 {
		result.Status = &o.Status
	}
	if !o.OK() {
		o.problem = o.Problem(cfg.timeout())
		result.Reason = &o.problem
	}
	d, err := s.recordTestEvent(context.WithoutCancel(ctx), ev, e, o)
	if err != nil {
		return nil, err
	}
	result.Delivery = toWebhookDelivery(d)
	return result, nil
}

// takesEvents refuses an endpoint switched off, or not verified (nothing
// is sent to an endpoint before its verification).
func takesEvents(e *repo.WebhookEndpoint, what string) error {
	switch state := endpointStatus(e); state {
	case "disabled":
		return apierr.New(apierr.EndpointDisabled, "Webhook endpoint %s is switched off; switch it on to send it %s.", e.ID, what)
	case "unverified":
		return apierr.New(apierr.EndpointDisabled, "Webhook endpoint %s is not verified; nothing is sent to it until it is "+
			"(verifyWebhookEndpoint runs the handshake again).", e.ID)
	}
	return nil
}

// testEvent makes the endpoint.test event of an endpoint and the body the
// endpoint receives.
func testEvent(a *auth.Actor, e *repo.WebhookEndpoint, now time.Time) (*repo.Event, []byte, error) {
	data, err := json.Marshal(map[string]string{"endpoint_id": e.ID,
		"message": "A test event sent from msgsvc's developer portal."})
	if err != nil {
		return nil, nil, err
	}
	ev := &repo.Event{ID: repo.NewID("evt_", now), WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		Type: EventEndpointTest, CreatedAt: now}
	if ev.Envelope, err = marshalEnvelope(model.WebhookEnvelope{Event: model.Event{ID: ev.ID, Type: ev.Type,
		CreatedAt: model.NewTimestamp(now), Livemode: a.Livemode, Data: data}}); err != nil {
		return nil, nil, err
	}
	body, err := webhookBody(ev.Envelope, e.MetadataOnly)
	return ev, body, err
}

// recordTestEvent stores a sent test event, its finished delivery and
// the delivery's one attempt.
func (s *Service) recordTestEvent(ctx context.Context, ev *repo.Event, e *repo.WebhookEndpoint, o outcome) (*repo.WebhookDelivery, error) {
	d := &repo.WebhookDelivery{ID: repo.NewID("whd_", o.at), WorkspaceID: ev.WorkspaceID, Livemode: ev.Livemode,
		EndpointID: e.ID, EventID: ev.ID, EventType: ev.Type, Status: "succeeded", Attempts: 1,
		FirstAttemptAt: &o.at, CreatedAt: o.at}
	if o.Status != 0 {
		d.LastResponseStatus = &o.Status
	}
	if o.problem != "" {
		d.Status, d.LastError = "failed", &o.problem
	}
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		if err := q.InsertSentEvent(ctx, ev); err != nil {
			return err
		}
		d.EventSeq = ev.Seq
		if err := q.InsertFinishedWebhookDelivery(ctx, d); err != nil {
			return err
		}
		return q.InsertWebhookAttemptLog(ctx, o.attemptLog(d.ID, o.at))
	})
	return d, err
}
