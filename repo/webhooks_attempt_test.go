package repo_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// attemptWorld is a workspace with one verified endpoint, in a run of
// failures, and a helper that records events with their deliveries to it.
type attemptWorld struct {
	t     *testing.T
	store *repo.Store
	now   time.Time
	ep    *repo.WebhookEndpoint
	seq   int
}

func newAttemptWorld(t *testing.T) *attemptWorld {
	t.Helper()
	store := repotest.NewStore(t)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	if _, err := store.DB.ExecContext(t.Context(), `INSERT INTO workspaces (id, name, plan, status,
		messages_limit, rate_per_second, rate_per_minute) VALUES ('ws_att', 'Att', 'free', 'active', 10, 10, 100)`); err != nil {
		t.Fatal(err)
	}
	verified, failing := now.Add(-48*time.Hour), now.Add(-time.Hour)
	ep := &repo.WebhookEndpoint{ID: "we_att", WorkspaceID: "ws_att", URL: "https://hooks.example/att",
		Enabled: true, VerifiedAt: &verified, Secret: []byte("sealed"), CreatedAt: verified}
	if err := store.InsertWebhookEndpoint(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.ExecContext(t.Context(), `UPDATE webhook_endpoints SET failing_since = $2
		WHERE id = $1`, ep.ID, failing); err != nil {
		t.Fatal(err)
	}
	ep.FailingSince = &failing
	return &attemptWorld{t: t, store: store, now: now, ep: ep}
}

// delivery records an event of a conversation ("" for none) and its
// delivery, due at due, and returns the delivery's id.
func (w *attemptWorld) delivery(conversation string, due time.Time) string {
	w.t.Helper()
	w.seq++
	ctx := w.t.Context()
	ev := &repo.Event{ID: "evt_att_" + strconv.Itoa(w.seq), WorkspaceID: "ws_att", Type: "message.received",
		Envelope: repo.JSONB(`{"n": ` + strconv.Itoa(w.seq) + `}`), CreatedAt: w.now.Add(-time.Duration(w.seq) * time.Minute)}
	var conv *string
	if conversation != "" {
		conv, ev.ConversationID = &conversation, &conversation
	}
	if err := w.store.InsertEvent(ctx, ev); err != nil {
		w.t.Fatal(err)
	}
	if err := w.store.DB.GetContext(ctx, &ev.Seq, `SELECT seq FROM events WHERE id = $1`, ev.ID); err != nil {
		w.t.Fatal(err)
	}
	d := &repo.WebhookDelivery{ID: "whd_att_" + strconv.Itoa(w.seq), WorkspaceID: "ws_att", EndpointID: w.ep.ID,
		EventID: ev.ID, EventType: ev.Type, EventSeq: ev.Seq, ConversationID: conv, Status: "pending",
		NextAttemptAt: &due, CreatedAt: w.now}
	if err := w.store.InsertWebhookDelivery(ctx, d); err != nil {
		w.t.Fatal(err)
	}
	return d.ID
}

func (w *attemptWorld) claim(id, token string, at time.Time) (*repo.ClaimedWebhookDelivery, error) {
	return w.store.ClaimWebhookDelivery(w.t.Context(), id, at, at.Add(time.Minute), token)
}

// TestClaimWebhookDeliveryReadsEndpointAndEvent: the claim leases a due
// delivery and returns its endpoint's row and its event's envelope and
// time with it; a delivery not to be attempted now is not found and keeps
// its state.
func TestClaimWebhookDeliveryReadsEndpointAndEvent(t *testing.T) {
	w := newAttemptWorld(t)
	first := w.delivery("conv_1", w.now)
	second := w.delivery("conv_1", w.now)
	later := w.delivery("", w.now.Add(time.Second))

	c, err := w.claim(first, "tok-1", w.now)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != first || c.Status != "pending" || c.LeaseToken == nil || *c.LeaseToken != "tok-1" ||
		!c.LeaseUntil.Equal(w.now.Add(time.Minute)) || !c.FirstAttemptAt.Equal(w.now) || *c.ConversationID != "conv_1" {
		t.Errorf("the claimed delivery: %+v", c.WebhookDelivery)
	}
	e := c.Endpoint
	if e.ID != w.ep.ID || e.WorkspaceID != "ws_att" || e.URL != w.ep.URL || string(e.Secret) != "sealed" ||
		!e.Enabled || e.DeletedAt != nil || !e.VerifiedAt.Equal(*w.ep.VerifiedAt) || !e.FailingSince.Equal(*w.ep.FailingSince) {
		t.Errorf("the claimed delivery's endpoint: %+v", e)
	}
	if string(c.EventEnvelope) != `{"n": 1}` || c.EventCreatedAt == nil || !c.EventCreatedAt.Equal(w.now.Add(-time.Minute)) {
		t.Errorf("the claimed delivery's event: %s at %v", c.EventEnvelope, c.EventCreatedAt)
	}

	for _, tc := range []struct {
		what, id string
		at       time.Time
	}{
		{"leased by another worker", first, w.now.Add(59 * time.Second)},
		{"waiting for the earlier delivery of its conversation", second, w.now},
		{"not yet due", later, w.now.Add(999 * time.Millisecond)},
	} {
		if c, err := w.claim(tc.id, "tok-other", tc.at); !errors.Is(err, repo.ErrNotFound) {
			t.Errorf("%s: claim = %+v, %v; want ErrNotFound", tc.what, c, err)
		}
	}
	var leased int
	if err := w.store.DB.Get(&leased, `SELECT count(*) FROM webhook_deliveries WHERE lease_token IS NOT NULL`); err != nil || leased != 1 {
		t.Errorf("%d deliveries leased (%v), want the first alone", leased, err)
	}
	// Its lease run out, another worker takes the delivery over.
	if c, err := w.claim(first, "tok-2", w.now.Add(time.Minute)); err != nil || *c.LeaseToken != "tok-2" || !c.FirstAttemptAt.Equal(w.now) {
		t.Errorf("after the lease: claim = %+v, %v", c, err)
	}
	if c, err := w.claim(later, "tok-3", w.now.Add(time.Second)); err != nil || c.ID != later || c.ConversationID != nil {
		t.Errorf("an unordered delivery when due: claim = %+v, %v", c, err)
	}
	if ok, _, err := w.store.RecordWebhookSuccess(t.Context(), later, "tok-3", 200); err != nil || !ok {
		t.Fatalf("record = %v, %v", ok, err)
	}
	if c, err := w.claim(later, "tok-4", w.now.Add(time.Hour)); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("a finished delivery: claim = %+v, %v; want ErrNotFound", c, err)
	}
}

// TestClaimWebhookDeliveryWhateverTheEndpointOrEvent: the claim returns the
// endpoint's row deleted or disabled alike, for the attempt to skip, and a
// delivery whose event's row is gone without the event, for the attempt to
// fail, rather than leasing a delivery it does not return.
func TestClaimWebhookDeliveryWhateverTheEndpointOrEvent(t *testing.T) {
	w := newAttemptWorld(t)
	disabled := w.delivery("", w.now)
	deleted := w.delivery("", w.now)
	orphan := w.delivery("", w.now)
	ctx := t.Context()

	if _, err := w.store.DB.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'manual'`); err != nil {
		t.Fatal(err)
	}
	if c, err := w.claim(disabled, "tok-1", w.now); err != nil || c.Endpoint.Enabled || c.Endpoint.DisabledReason == nil {
		t.Errorf("a disabled endpoint: claim = %+v, %v", c, err)
	}
	if err := w.store.DeleteWebhookEndpoint(ctx, "ws_att", w.ep.ID, w.now); err != nil {
		t.Fatal(err)
	}
	// The deletion dropped the open deliveries; put one back as a race
	// between the two would leave it.
	if _, err := w.store.DB.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, workspace_id, livemode,
		endpoint_id, event_id, event_type, event_seq, status, next_attempt_at, created_at)
		SELECT $1, 'ws_att', false, $2, id, type, seq, 'pending', $3, $3 FROM events WHERE id = 'evt_att_2'`,
		deleted, w.ep.ID, w.now); err != nil {
		t.Fatal(err)
	}
	if c, err := w.claim(deleted, "tok-2", w.now); err != nil || c.Endpoint.DeletedAt == nil || c.EventCreatedAt == nil {
		t.Errorf("a deleted endpoint: claim = %+v, %v", c, err)
	}

	// A purge takes the deliveries with the event; only a row removed
	// around the foreign key leaves a delivery without its event.
	if _, err := w.store.DB.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, workspace_id, livemode,
		endpoint_id, event_id, event_type, event_seq, status, next_attempt_at, created_at)
		SELECT $1, 'ws_att', false, $2, id, type, seq, 'pending', $3, $3 FROM events WHERE id = 'evt_att_3'`,
		orphan, w.ep.ID, w.now); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`,
		`DELETE FROM events WHERE id = 'evt_att_3'`,
	} {
		if _, err := w.store.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c, err := w.claim(orphan, "tok-3", w.now)
	if err != nil || c.ID != orphan || *c.LeaseToken != "tok-3" || c.EventCreatedAt != nil || c.EventEnvelope != nil {
		t.Errorf("a delivery without its event: claim = %+v, %v", c, err)
	}
}

// TestRecordWebhookSuccessEndsTheRunOfFailures: a success under the lease
// records the delivery and clears the endpoint's failing_since in one
// statement; under a lost lease it writes nothing, the endpoint included.
func TestRecordWebhookSuccessEndsTheRunOfFailures(t *testing.T) {
	w := newAttemptWorld(t)
	id := w.delivery("conv_1", w.now)
	ctx := t.Context()
	if _, err := w.claim(id, "tok-1", w.now); err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.DB.ExecContext(ctx, `UPDATE webhook_deliveries SET last_error = 'earlier', swept_at = $2
		WHERE id = $1`, id, w.now); err != nil {
		t.Fatal(err)
	}
	failingSince := func() *time.Time {
		t.Helper()
		e, err := w.store.WebhookEndpointAnyState(ctx, w.ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		return e.FailingSince
	}

	if ok, _, err := w.store.RecordWebhookSuccess(ctx, id, "tok-lost", 200); err != nil || ok {
		t.Fatalf("under a lost lease: record = %v, %v; want false", ok, err)
	}
	if d := delivery(t, w.store, id); d.Status != "pending" || d.Attempts != 0 || d.LeaseToken == nil || d.LastResponseStatus != nil {
		t.Errorf("a lost lease wrote the delivery: %+v", d)
	}
	if since := failingSince(); since == nil {
		t.Error("a lost lease ended the endpoint's run of failures")
	}

	if ok, _, err := w.store.RecordWebhookSuccess(ctx, id, "tok-1", 204); err != nil || !ok {
		t.Fatalf("under the lease: record = %v, %v; want true", ok, err)
	}
	d := delivery(t, w.store, id)
	if d.Status != "succeeded" || d.Attempts != 1 || *d.LastResponseStatus != 204 || d.LastError != nil ||
		d.NextAttemptAt != nil || d.LeaseUntil != nil || d.LeaseToken != nil || d.SweptAt != nil {
		t.Errorf("the recorded success: %+v", d)
	}
	if since := failingSince(); since != nil {
		t.Errorf("the success left failing_since %v", since)
	}
	// The lease ended with the record: the same token records nothing more.
	if ok, _, err := w.store.RecordWebhookSuccess(ctx, id, "tok-1", 200); err != nil || ok {
		t.Errorf("a second record = %v, %v; want false", ok, err)
	}
	if d := delivery(t, w.store, id); d.Attempts != 1 || *d.LastResponseStatus != 204 {
		t.Errorf("a second record wrote the delivery: %+v", d)
	}
}

func delivery(t *testing.T, store *repo.Store, id string) *repo.WebhookDelivery {
	t.Helper()
	d, err := store.WebhookDelivery(t.Context(), repo.Scope{WorkspaceID: "ws_att"}, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRecordWebhookSuccessFindsTheNext: the success of an ordered delivery
// answers the next one of its endpoint and conversation still to be
// attempted, with when it is due; an unordered one, or the last of its
// conversation, answers none.
func TestRecordWebhookSuccessFindsTheNext(t *testing.T) {
	w := newAttemptWorld(t)
	ctx := t.Context()
	first := w.delivery("conv_1", w.now)
	w.delivery("conv_2", w.now) // another conversation's, earlier than second
	second := w.delivery("conv_1", w.now.Add(time.Minute))
	third := w.delivery("conv_1", w.now)
	unordered := w.delivery("", w.now)
	for _, tc := range []struct {
		id, next string
		due      time.Time
	}{
		{first, second, w.now.Add(time.Minute)},
		{second, third, w.now},
		{third, "", time.Time{}},
		{unordered, "", time.Time{}},
	} {
		if _, err := w.claim(tc.id, "tok", w.now.Add(time.Minute)); err != nil {
			t.Fatalf("claim %s: %v", tc.id, err)
		}
		ok, next, err := w.store.RecordWebhookSuccess(ctx, tc.id, "tok", 200)
		if err != nil || !ok {
			t.Fatalf("record %s = %v, %v", tc.id, ok, err)
		}
		switch {
		case tc.next == "" && next != nil:
			t.Errorf("after %s: next %+v, want none", tc.id, next)
		case tc.next != "" && (next == nil || next.ID != tc.next || !next.NextAttemptAt.Equal(tc.due)):
			t.Errorf("after %s: next %+v, want %s due %v", tc.id, next, tc.next, tc.due)
		}
	}
}

// TestReadyWaitsForASuccessBeingRecorded: the fan-out's look at which new
// deliveries may go waits for an earlier delivery's success still being
// recorded, and then sees the new one ready: the record's own look for its
// successor may have missed it, so one of the two must see it.
func TestReadyWaitsForASuccessBeingRecorded(t *testing.T) {
	w := newAttemptWorld(t)
	ctx := t.Context()
	first := w.delivery("conv_1", w.now)
	second := w.delivery("conv_1", w.now)
	if ready, err := w.store.ReadyWebhookDeliveries(ctx, []string{second}); err != nil || len(ready) != 0 {
		t.Fatalf("while the first is open: ready %v, %v; want none", ready, err)
	}
	tx, err := w.store.DB.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		ready []string
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		ready, err := w.store.ReadyWebhookDeliveries(ctx, []string{second})
		done <- answer{ready, err}
	}()
	waitForLockWaits(t, w.store, "FOR SHARE", 1)
	select {
	case a := <-done:
		t.Fatalf("answered %v, %v while the success was not committed", a.ready, a.err)
	default:
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a.err != nil || len(a.ready) != 1 || a.ready[0] != second {
		t.Errorf("after the success committed: ready %v, %v; want %s", a.ready, a.err, second)
	}
}

// TestClaimCommitsWithoutAFlush: the claim, and the success record, turn
// synchronous_commit off for their own transaction, and only for it: the
// connection's next transaction commits synchronously again. (They run in a
// transaction here only so the setting they leave can be read; the service
// runs them outside one.)
func TestClaimCommitsWithoutAFlush(t *testing.T) {
	w := newAttemptWorld(t)
	w.store.SetMaxConns(1) // the statements below share the claim's connection
	ctx := t.Context()
	id := w.delivery("conv_1", w.now)
	setting := func(q repo.Queries) string {
		t.Helper()
		var v string
		if err := q.ShowSetting(ctx, "synchronous_commit", &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// unflushed runs what in a transaction, wants synchronous_commit off
	// in it after fn, and on again after its commit.
	unflushed := func(what string, fn func(q repo.Queries) error) {
		t.Helper()
		err := w.store.InTx(ctx, func(q repo.Queries) error {
			if err := fn(q); err != nil {
				return err
			}
			if v := setting(q); v != "off" {
				t.Errorf("synchronous_commit %q in the %s's transaction, want off", v, what)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if v := setting(w.store.Queries); v != "on" {
			t.Errorf("synchronous_commit %q after the %s's transaction, want on", v, what)
		}
	}
	unflushed("claim", func(q repo.Queries) error {
		c, err := q.ClaimEach(ctx, id, w.now, w.now.Add(time.Minute), "tok")
		if err == nil && c[0] == nil {
			err = repo.ErrNotFound
		}
		return err
	})
	unflushed("success record", func(q repo.Queries) error {
		ok, _, err := q.RecordSuccesses(ctx, []string{id}, []string{"tok"})
		if err == nil && !ok[0] {
			err = errors.New("the success was not recorded")
		}
		return err
	})
	next := w.delivery("conv_2", w.now)
	if _, err := w.claim(next, "tok-2", w.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if v := setting(w.store.Queries); v != "on" {
		t.Errorf("synchronous_commit %q after a claim on its own, want on", v)
	}
}

// TestInsertWebhookDeliveriesKeepsEveryColumn: a batch (one statement for
// any number of rows) stores each delivery's columns as given, NULLs
// included, and a single delivery goes the same way.
func TestInsertWebhookDeliveriesKeepsEveryColumn(t *testing.T) {
	w := newAttemptWorld(t)
	ctx := t.Context()
	first := w.delivery("conv_1", w.now)
	channel, website, conv, replayOf := "website", "web_1", "conv_2", first
	due := w.now.Add(90 * time.Second).Add(123456 * time.Nanosecond).Truncate(time.Microsecond)
	var ev repo.Event
	if err := w.store.DB.GetContext(ctx, &ev, `SELECT seq, id, type FROM events WHERE id = 'evt_att_1'`); err != nil {
		t.Fatal(err)
	}
	want := []repo.WebhookDelivery{
		{ID: "whd_b1", WorkspaceID: "ws_att", EndpointID: w.ep.ID, EventID: ev.ID, EventType: ev.Type, EventSeq: ev.Seq,
			Channel: &channel, WebsiteID: &website, ConversationID: &conv, ReplayOf: &replayOf, Status: "pending",
			NextAttemptAt: &due, CreatedAt: w.now},
		{ID: "whd_b2", WorkspaceID: "ws_att", EndpointID: w.ep.ID, EventID: ev.ID, EventType: ev.Type, EventSeq: ev.Seq,
			Status: "failed", CreatedAt: w.now.Add(time.Millisecond)},
	}
	if err := w.store.InsertWebhookDeliveries(ctx, want); err != nil {
		t.Fatal(err)
	}
	scope := repo.Scope{WorkspaceID: "ws_att"}
	read := func(id string) *repo.WebhookDelivery {
		t.Helper()
		got, err := w.store.WebhookDelivery(ctx, scope, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return got
	}
	for _, d := range want {
		if got := read(d.ID); fmt.Sprint(deliveryColumns(*got)) != fmt.Sprint(deliveryColumns(d)) {
			t.Errorf("%s reads back as\n%v\nwant\n%v", d.ID, deliveryColumns(*got), deliveryColumns(d))
		}
	}
	if got := read(first); got.EventID != "evt_att_1" || got.Status != "pending" || got.NextAttemptAt == nil || !got.NextAttemptAt.Equal(w.now) {
		t.Errorf("the single delivery reads back as %+v", got)
	}
}

// deliveryColumns is what InsertWebhookDeliveries writes of a delivery,
// pointers followed and times in UTC.
func deliveryColumns(d repo.WebhookDelivery) []any {
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	var next any
	if d.NextAttemptAt != nil {
		next = d.NextAttemptAt.UTC()
	}
	return []any{d.ID, d.WorkspaceID, d.Livemode, d.EndpointID, d.EventID, d.EventType, d.EventSeq,
		str(d.Channel), str(d.WebsiteID), str(d.ConversationID), str(d.ReplayOf), d.Status, next, d.CreatedAt.UTC()}
}
