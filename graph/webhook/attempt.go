package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// outcome is what one attempt of a delivery came to.
type outcome struct {
	answer
	problem string // why it failed; "" on success
	// skipped: nothing was sent, the endpoint being off or deleted or the
	// event gone; the delivery fails without counting an attempt.
	skipped bool
	// eventAt is when the event was recorded: the lag metric starts there.
	eventAt time.Time
	// at is when the request was made (zero: none was).
	at time.Time
}

// chainLimit is how many deliveries of one conversation a task attempts in a
// row before it hands the next to the queue, so that a busy conversation
// shares the workers with the others.
const chainLimit = 50

// AttemptDelivery makes one attempt of a delivery, if it is due and no other
// worker holds it; otherwise it does nothing, so a task that runs twice sends
// at most one extra copy. The outcome decides what comes next: success, a
// retry on the schedule, or failure once the give-up time has passed; and
// when an ordered delivery finishes, the next one of its conversation
// follows at once in the same task (up to chainLimit), without a trip
// through the queue.
func (s *Service) AttemptDelivery(ctx context.Context, id string) error {
	for range chainLimit {
		next, err := s.attemptOne(ctx, id)
		if err != nil || next == "" {
			return err
		}
		if ctx.Err() != nil {
			break
		}
		id = next
	}
	s.deliveryDue(ctx, id, 0)
	return nil
}

// attemptOne makes one attempt of a delivery and returns the id of the next
// delivery of its conversation when that one is due now.
func (s *Service) attemptOne(ctx context.Context, id string) (string, error) {
	cfg := s.config()
	now := s.Clock.Now()
	token := make([]byte, 12)
	if _, err := rand.Read(token); err != nil {
		return "", fmt.Errorf("webhook: attempt %s: lease token: %w", id, err)
	}
	c, err := s.Store.ClaimWebhookDelivery(ctx, id, now, now.Add(cfg.lease()), hex.EncodeToString(token))
	if errors.Is(err, repo.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("webhook: attempt %s: claim: %w", id, err)
	}
	d := &c.WebhookDelivery
	o, err := s.attempt(ctx, c, now)
	if ctx.Err() != nil || err != nil {
		// Shutting down, or the database failed: give the delivery back
		// unattempted rather than count an attempt that did not happen.
		if rerr := s.Store.ReleaseWebhookDelivery(context.WithoutCancel(ctx), d.ID, *d.LeaseToken); rerr != nil {
			slog.Warn("webhook: release delivery; its lease runs out instead", "delivery", d.ID, "err", rerr)
		}
		if err != nil {
			err = fmt.Errorf("webhook: attempt %s: %w", id, err)
		}
		return "", errors.Join(err, ctx.Err())
	}
	next, err := s.recordAttempt(ctx, d, o)
	if err != nil {
		err = fmt.Errorf("webhook: attempt %s: record: %w", id, err)
	}
	return next, err
}

// attempt sends the delivery's event to its endpoint, signed. The claim
// read the endpoint and the event with the delivery, so the attempt itself
// asks the database nothing.
func (s *Service) attempt(ctx context.Context, c *repo.ClaimedWebhookDelivery, now time.Time) (outcome, error) {
	cfg := s.config()
	e := &c.Endpoint
	switch {
	case e.DeletedAt != nil || !e.Enabled:
		return outcome{skipped: true, problem: "the endpoint is switched off"}, nil
	case e.VerifiedAt == nil:
		return outcome{problem: "the endpoint is not verified; nothing is sent until it is"}, nil
	case c.EventCreatedAt == nil:
		// A purge deletes an event's deliveries with it, so only a row
		// removed around the foreign key gets here. No later attempt could
		// send it: the delivery fails now rather than at every sweep.
		return outcome{skipped: true, problem: "the event is gone; there is nothing to send"}, nil
	}
	body, err := webhookBody(c.EventEnvelope, e.MetadataOnly)
	if err != nil {
		return outcome{}, err
	}
	secrets, err := s.signingSecrets(e, now)
	if err != nil {
		return outcome{problem: err.Error()}, nil
	}
	ans := cfg.post(ctx, e.URL, body, webhooksig.Header(now, body, secrets...))
	o := outcome{answer: ans, eventAt: *c.EventCreatedAt, at: now}
	if !ans.OK() {
		o.problem = ans.Problem(cfg.timeout())
	}
	return o, nil
}

// recordAttempt stores an outcome, keeps the endpoint's health, and hands
// the next attempt to the queue; it returns the id of the next delivery in
// order when that one is due now.
func (s *Service) recordAttempt(ctx context.Context, d *repo.WebhookDelivery, o outcome) (string, error) {
	// The attempt happened; its record must not be lost to a shutdown.
	ctx = context.WithoutCancel(ctx)
	cfg := s.config()
	now := s.Clock.Now()
	a := repo.WebhookAttempt{Status: "succeeded", Attempted: !o.skipped, Log: o.attemptLog(d.ID, now)}
	if o.Status != 0 {
		a.ResponseStatus = &o.Status
	}
	if o.problem != "" {
		a.Error, a.Status = &o.problem, "failed"
		next := now.Add(cfg.RetryDelay(d.Attempts + 1))
		if !o.skipped && o.Status != http.StatusGone && next.Sub(*d.FirstAttemptAt) < cfg.giveUpAfter() {
			a.Status, a.NextAttemptAt = "retrying", &next
		}
	}
	var recorded, switchedOff bool
	var next *repo.DueWebhookDelivery
	var err error
	if o.problem == "" {
		// The common outcome takes one statement and no transaction: the
		// record, the end of the endpoint's run of failures and the next
		// delivery in order together.
		recorded, next, err = s.Store.RecordLoggedWebhookSuccess(ctx, d.ID, *d.LeaseToken, a.Log)
	} else {
		recorded, switchedOff, err = s.recordFailure(ctx, d, o, a, now)
	}
	if err == nil && recorded && !o.skipped {
		metrics.ObserveWebhookAttempt(a.Status, now.Sub(o.eventAt))
	}
	switch {
	case err != nil || !recorded || switchedOff:
		return "", err
	case a.Status == "retrying":
		s.deliveryDue(ctx, d.ID, a.NextAttemptAt.Sub(s.Clock.Now()))
	case o.problem == "":
		return s.dueNow(ctx, next), nil
	case d.ConversationID != nil:
		return s.nextInOrder(ctx, d), nil
	}
	return "", nil
}

// recordFailure stores a failed or skipped attempt, and in the same
// transaction keeps the endpoint's health: a 410 switches it off at once,
// and a run of failures as long as the give-up time switches it off too.
// It reports whether the attempt was recorded and whether the endpoint was
// switched off.
func (s *Service) recordFailure(ctx context.Context, d *repo.WebhookDelivery, o outcome, a repo.WebhookAttempt, now time.Time) (recorded, switchedOff bool, err error) {
	cfg := s.config()
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		var err error
		if recorded, err = q.RecordWebhookAttempt(ctx, d.ID, *d.LeaseToken, a); err != nil || !recorded || o.skipped {
			return err
		}
		if o.Status == http.StatusGone {
			switchedOff, err = s.switchOff(ctx, q, d, "gone", "it answered 410 Gone")
			return err
		}
		since, err := q.WebhookFailing(ctx, d.EndpointID, now)
		if err != nil || now.Sub(since) < cfg.giveUpAfter() {
			return err
		}
		switchedOff, err = s.switchOff(ctx, q, d, "failing", fmt.Sprintf("every attempt failed for %s", cfg.giveUpAfter()))
		return err
	})
	return recorded, switchedOff, err
}

// nextInOrder finds the next delivery of a failed one's conversation,
// which waited for this one (docs/api.md, Delivery guarantees). It runs
// after the failure committed, so a successor fanned out meanwhile is either seen
// here or saw this one finished (fanOutOnce). A success finds its next
// delivery as it is recorded (repo.RecordWebhookSuccess).
func (s *Service) nextInOrder(ctx context.Context, d *repo.WebhookDelivery) string {
	next, err := s.Store.NextInOrder(ctx, d.EndpointID, *d.ConversationID)
	if errors.Is(err, repo.ErrNotFound) {
		return ""
	}
	if err != nil {
		slog.Warn("find the next webhook delivery; the sweep will hand it over", "after", d.ID, "err", err)
		return ""
	}
	return s.dueNow(ctx, next)
}

// dueNow returns the id of a next delivery in order when it is due now,
// and hands it to the queue at its due time otherwise.
func (s *Service) dueNow(ctx context.Context, next *repo.DueWebhookDelivery) string {
	if next == nil {
		return ""
	}
	if wait := next.NextAttemptAt.Sub(s.Clock.Now()); wait > 0 {
		s.deliveryDue(ctx, next.ID, wait)
		return ""
	}
	return next.ID
}

// switchOff disables an endpoint for a reason, fails its deliveries still
// to be attempted, and writes the workspace owner an email, once.
func (s *Service) switchOff(ctx context.Context, q repo.Queries, d *repo.WebhookDelivery, reason, why string) (bool, error) {
	switched, err := q.SwitchOffWebhook(ctx, d.EndpointID, reason, "endpoint switched off: "+why)
	if err != nil || !switched {
		return switched, err
	}
	e, err := q.WebhookEndpointAnyState(ctx, d.EndpointID)
	if err != nil {
		return true, err
	}
	w, err := q.Workspace(ctx, e.WorkspaceID)
	if err != nil || w.OwnerEmail == "" {
		return true, err
	}
	now := s.Clock.Now()
	return true, q.InsertOutboxEmail(ctx, &repo.OutboxEmail{
		ID: repo.NewID("eml_", now), WorkspaceID: w.ID, ToAddress: w.OwnerEmail, CreatedAt: now,
		Subject: "Webhook endpoint switched off: " + e.URL,
		Body: fmt.Sprintf("We switched off your webhook endpoint %s (%s) because %s.\n\n"+
			"It receives no events until you switch it on again with PATCH /v1/webhook-endpoints/%s "+
			"and {\"enabled\": true}. Deliveries it missed can be replayed with "+
			"POST /v1/webhook-deliveries/{id}/replay.\n", e.URL, e.ID, why, e.ID),
	})
}
