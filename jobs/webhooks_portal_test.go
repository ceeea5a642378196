package jobs_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// member is a signed-in person of a workspace, in a mode.
func member(t *testing.T, workspace string, live bool, role string) context.Context {
	return auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: workspace, Livemode: live,
		MemberID: "mem_" + role, Role: role})
}

// wantCode fails unless err is the API error code.
func wantCode(t *testing.T, what string, err error, code apierr.Code) {
	t.Helper()
	if e, ok := apierr.As(err); !ok || e.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// switchable answers 200, or 500 while down.
func switchable(down *atomic.Bool) func(int, resttest.Request) int {
	return func(int, resttest.Request) int {
		if down.Load() {
			return 500
		}
		return 200
	}
}

func TestSendTestEventIsSentOnceSignedAndListed(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	w.StartWorker()
	svc := w.Resolver.Webhooks
	var down atomic.Bool
	rc := resttest.NewReceiver(t, switchable(&down))
	other := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, nil)
	all := w.CreateEndpoint(other.URL, nil) // every event type, test events on
	ctx := member(t, "ws_main", false, auth.RoleDeveloper)

	res, err := svc.SendTestEvent(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != webhook.TestDelivered || res.Status == nil || *res.Status != 200 || res.Reason != nil ||
		res.Delivery.Status != "succeeded" || res.Delivery.Attempts != 1 || res.Delivery.EventID != res.EventID ||
		res.Delivery.EventType != "endpoint.test" || res.Delivery.EndpointID != ep.ID {
		t.Fatalf("result %+v, delivery %+v", res, res.Delivery)
	}
	got := rc.Events()
	if len(got) != 1 || got[0].Type() != "endpoint.test" || got[0].ID() != res.EventID ||
		got[0].Data()["endpoint_id"] != ep.ID || got[0].Envelope["livemode"] != false {
		t.Fatalf("received %v", got)
	}
	if err := webhooksig.Verify(got[0].Header.Get(webhooksig.HeaderName), got[0].Body, w.Clock.Now(), ep.Secret); err != nil {
		t.Errorf("signature: %v", err)
	}

	// One per 10 s per endpoint, on the injected clock.
	_, err = svc.SendTestEvent(ctx, ep.ID)
	wantCode(t, "a second test event at once", err, apierr.RateLimited)
	if e, _ := apierr.As(err); e != nil && e.RetryAfter != 10*time.Second {
		t.Errorf("Retry-After %s, want 10s", e.RetryAfter)
	}
	w.Clock.Advance(9 * time.Second)
	_, err = svc.SendTestEvent(ctx, ep.ID)
	wantCode(t, "a test event after 9 s", err, apierr.RateLimited)
	w.Clock.Advance(time.Second)
	down.Store(true)
	refused, err := svc.SendTestEvent(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if refused.Outcome != webhook.TestRefused || refused.Status == nil || *refused.Status != 500 || refused.Reason == nil ||
		refused.Delivery.Status != "failed" || refused.Delivery.NextAttemptAt != nil {
		t.Fatalf("refused: %+v, delivery %+v", refused, refused.Delivery)
	}

	// Never retried: neither a sweep nor a task attempts it again, and no
	// other endpoint gets it from the fan-out.
	w.Clock.Advance(time.Hour)
	if err := svc.SweepDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := svc.AttemptDelivery(t.Context(), refused.Delivery.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(rc.Events()); n != 2 {
		t.Errorf("the receiver got %d requests, want 2", n)
	}
	if ds := w.Deliveries(all.ID, "test_all"); len(ds) != 0 {
		t.Errorf("another endpoint got deliveries %v", ds)
	}

	// Listed among the endpoint's deliveries, with its attempt.
	page, err := svc.ListDeliveries(ctx, &model.WebhookDeliveryFilter{EndpointID: &ep.ID}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].ID != refused.Delivery.ID || page.Items[1].ID != res.Delivery.ID {
		t.Fatalf("deliveries %+v", page.Items)
	}
	logs, err := svc.AttemptLogs(ctx, []string{refused.Delivery.ID})
	if err != nil {
		t.Fatal(err)
	}
	if a := logs[refused.Delivery.ID]; len(a) != 1 || a[0].ResponseStatus == nil || *a[0].ResponseStatus != 500 || a[0].Error == nil {
		t.Errorf("attempts %+v", a)
	}
	_, err = svc.Replay(ctx, res.Delivery.ID)
	wantCode(t, "replaying a test event", err, apierr.InvalidRequest)

	// Another workspace, or the other mode, cannot see or use any of it.
	_, err = svc.SendTestEvent(member(t, "ws_other", false, auth.RoleDeveloper), ep.ID)
	wantCode(t, "another workspace's test event", err, apierr.EndpointNotFound)
	live := member(t, "ws_main", true, auth.RoleDeveloper)
	if page, err := svc.ListDeliveries(live, &model.WebhookDeliveryFilter{EndpointID: &ep.ID}, nil, nil); err != nil || len(page.Items) != 0 {
		t.Errorf("live mode lists %v, %v", page, err)
	}
	if logs, err := svc.AttemptLogs(member(t, "ws_other", false, auth.RoleAdmin), []string{res.Delivery.ID}); err != nil || len(logs[res.Delivery.ID]) != 0 {
		t.Errorf("another workspace reads attempts %v, %v", logs, err)
	}

	// A switched-off endpoint gets none.
	w.Want(w.Do("PATCH", "/v1/webhook-endpoints/"+ep.ID, "test_all", map[string]any{"enabled": false}), 200, "")
	w.Clock.Advance(time.Minute)
	_, err = svc.SendTestEvent(ctx, ep.ID)
	wantCode(t, "a switched-off endpoint", err, apierr.EndpointDisabled)
}

func TestAttemptsKeepTheAnswer(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil) // no worker: the test makes the attempts
	svc := w.Resolver.Webhooks
	var down atomic.Bool
	down.Store(true)
	rc := resttest.NewReceiver(t, switchable(&down))
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	w.Inbound("website", "visitor-attempts", "a secret message text")
	id := fannedOut(t, w, ep.ID)
	first := w.Clock.Now()
	if err := svc.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	w.Clock.Advance(time.Minute)
	down.Store(false)
	if err := svc.AttemptDelivery(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	ctx := member(t, "ws_main", false, auth.RoleDeveloper)
	logs, err := svc.AttemptLogs(ctx, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	a := logs[id]
	if len(a) != 2 || !a[0].AttemptedAt.Equal(first) || !a[1].AttemptedAt.Equal(first.Add(time.Minute)) ||
		*a[0].ResponseStatus != 500 || a[0].Error == nil || *a[1].ResponseStatus != 200 || a[1].Error != nil {
		t.Fatalf("attempts %+v", a)
	}
	for _, at := range a {
		if at.ResponseBody != nil || at.LatencyMs < 0 {
			t.Errorf("attempt %+v: the receiver answered no body", at)
		}
	}
	if d := w.Delivery(id); d.Status != "succeeded" || d.Attempts != 2 {
		t.Errorf("delivery %+v", d)
	}
}

func TestRecoverReplaysTheFailedDeliveriesSinceATime(t *testing.T) {
	t.Parallel()
	cfg := resttest.WebhookConfig()
	cfg.GiveUpAfter = time.Minute // a failed attempt is the last one
	w := resttest.NewWorld(t, cfg)
	svc := w.Resolver.Webhooks
	var down atomic.Bool
	down.Store(true)
	rc := resttest.NewReceiver(t, switchable(&down))
	ep := w.CreateEndpoint(rc.URL, onlyMessages)
	deliver := func(from string) string {
		w.Inbound("website", from, "hello from "+from)
		id := fannedOut(t, w, ep.ID)
		if err := svc.AttemptDelivery(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := deliver("visitor-before") // failed, before since
	w.Clock.Advance(30 * time.Second)
	since := w.Clock.Now()
	failed := []string{deliver("visitor-b"), deliver("visitor-c")}
	down.Store(false)
	succeeded := deliver("visitor-d")
	for _, id := range append([]string{before}, failed...) {
		if d := w.Delivery(id); d.Status != "failed" {
			t.Fatalf("delivery %s is %s, want failed", id, d.Status)
		}
	}
	if d := w.Delivery(succeeded); d.Status != "succeeded" {
		t.Fatalf("delivery %s is %s", succeeded, d.Status)
	}

	ctx := member(t, "ws_main", false, auth.RoleAdmin)
	_, err := svc.RecoverDeliveries(ctx, ep.ID, w.Clock.Now().Add(time.Second))
	wantCode(t, "since in the future", err, apierr.InvalidRequest)
	_, err = svc.RecoverDeliveries(member(t, "ws_other", false, auth.RoleAdmin), ep.ID, since)
	wantCode(t, "another workspace's endpoint", err, apierr.EndpointNotFound)
	rec, err := svc.RecoverDeliveries(ctx, ep.ID, since)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != "running" || rec.Total != 2 || rec.Done != 0 || rec.EndpointID != ep.ID {
		t.Fatalf("recovery %+v", rec)
	}

	// The worker runs it as a task of its own.
	srv := jobs.NewServerOn(w.Redis, 4, w.Queue)
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{Webhooks: svc})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	resttest.Eventually(t, "the recovery to finish", func() bool {
		r, err := svc.Recovery(ctx, rec.ID)
		return err == nil && r.State == "done"
	})
	if r, _ := svc.Recovery(ctx, rec.ID); r.Done != 2 || r.Total != 2 || r.FinishedAt == nil {
		t.Errorf("finished recovery %+v", r)
	}
	got := rc.WaitEvents(t, 6)
	wantIDs := []string{w.Delivery(failed[0]).EventID, w.Delivery(failed[1]).EventID}
	var replayed []string
	for _, r := range got[4:] {
		replayed = append(replayed, r.ID())
	}
	slices.Sort(replayed)
	slices.Sort(wantIDs)
	if !slices.Equal(replayed, wantIDs) {
		t.Errorf("replayed events %v, want %v (the failed ones since, with their ids)", replayed, wantIDs)
	}
	time.Sleep(50 * time.Millisecond) // nothing more may come
	if n := len(rc.Events()); n != 6 {
		t.Errorf("the receiver got %d events, want 6", n)
	}
	for _, d := range w.Deliveries(ep.ID, "test_all") {
		if d["replay_of"] != nil && !slices.Contains(failed, d["replay_of"].(string)) {
			t.Errorf("replayed %v", d)
		}
	}

	// Its progress is the caller's workspace's and mode's only.
	_, err = svc.Recovery(member(t, "ws_other", false, auth.RoleAdmin), rec.ID)
	wantCode(t, "another workspace's recovery", err, apierr.RecoveryNotFound)
	_, err = svc.Recovery(member(t, "ws_main", true, auth.RoleAdmin), rec.ID)
	wantCode(t, "the other mode's recovery", err, apierr.RecoveryNotFound)
}

// stepUp is a step-up double: it refuses with err, and records purposes.
type stepUp struct {
	purposes []string
	err      error
}

func (s *stepUp) RequireStepUp(_ context.Context, purpose string) error {
	s.purposes = append(s.purposes, purpose)
	return s.err
}

func TestShowEndpointSecretNeedsStepUp(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	svc := w.Resolver.Webhooks
	rc := resttest.NewReceiver(t, nil)
	ep := w.CreateEndpoint(rc.URL, nil)
	dev := member(t, "ws_main", false, auth.RoleDeveloper)

	// Without a step-up service only the admin token may.
	_, err := svc.ShowSecret(dev, ep.ID)
	wantCode(t, "no step-up service", err, apierr.StepUpRequired)
	admin := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_main", Admin: true})
	if s, err := svc.ShowSecret(admin, ep.ID); err != nil || s.Secret != ep.Secret {
		t.Errorf("admin: %+v, %v", s, err)
	}

	double := &stepUp{err: apierr.New(apierr.StepUpRequired, "")}
	svc.StepUp = double
	_, err = svc.ShowSecret(dev, ep.ID)
	wantCode(t, "no code verified", err, apierr.StepUpRequired)
	double.err = nil
	s, err := svc.ShowSecret(dev, ep.ID)
	if err != nil || s.Secret != ep.Secret || s.ID != ep.ID || s.PreviousSecretUntil != nil {
		t.Fatalf("secret %+v, %v", s, err)
	}
	if !slices.Equal(double.purposes, []string{"show_endpoint_secret", "show_endpoint_secret"}) {
		t.Errorf("purposes %v", double.purposes)
	}
	_, err = svc.ShowSecret(member(t, "ws_other", false, auth.RoleOwner), ep.ID)
	wantCode(t, "another workspace's endpoint", err, apierr.EndpointNotFound)

	// After a roll: the new secret, and until when the old one co-signs.
	rolled := w.Want(w.Do("POST", "/v1/webhook-endpoints/"+ep.ID+"/roll-secret", "test_all", map[string]any{"grace_hours": 2}), 200, "").Data()
	s, err = svc.ShowSecret(dev, ep.ID)
	if err != nil || s.Secret != rolled["secret"] || s.PreviousSecretUntil == nil ||
		!s.PreviousSecretUntil.Equal(w.Clock.Now().Add(2*time.Hour)) {
		t.Errorf("after the roll %+v, %v", s, err)
	}
}

// fannedOut fans out in the test, with no worker, and returns the newest
// delivery of an endpoint.
func fannedOut(t *testing.T, w *resttest.World, endpointID string) string {
	t.Helper()
	if err := w.Resolver.Webhooks.FanOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	return newest(w, endpointID)
}
