package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// TestFanOutPartitionsGoInParallel: a fan-out pass holding one partition of
// workspaces holds up no other. With ws_pa's partition locked by another
// pass, FanOut fans out ws_pb's event, leaves ws_pa's to the holder and
// returns at once; once the lock is gone, ws_pa's event goes too.
func TestFanOutPartitionsGoInParallel(t *testing.T) {
	store := repotest.NewStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	verified := time.Now().Add(-time.Hour)
	for _, ws := range []string{"ws_pa", "ws_pb"} { // partitions 1 and 2: 'a' is 97, 'b' 98
		if _, err := store.DB.ExecContext(ctx, `INSERT INTO workspaces (id, name, plan, status, messages_limit,
			rate_per_second, rate_per_minute) VALUES ($1, $1, 'free', 'active', 10, 10, 100)`, ws); err != nil {
			t.Fatal(err)
		}
		if err := store.InsertWebhookEndpoint(ctx, &repo.WebhookEndpoint{ID: "we_" + ws, WorkspaceID: ws,
			URL: "https://example.com/hook", Events: []string{"*"}, TestEvents: true, Enabled: true,
			VerifiedAt: &verified, Secret: []byte("sealed"), CreatedAt: verified}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.DB.ExecContext(ctx, `INSERT INTO events (id, workspace_id, livemode, type, envelope, created_at)
			VALUES ('evt_' || $1, $1, false, 'contact.created', '{}', now())`, ws); err != nil {
			t.Fatal(err)
		}
	}
	holder, err := store.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // released at the end of the test
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_xact_lock(727002, 1)`); err != nil {
		t.Fatal(err)
	}
	r := &Service{Store: store}
	if err := r.FanOut(ctx); err != nil {
		t.Fatalf("FanOut with ws_pa's partition held: %v", err)
	}
	deliveries := func(ws string) int {
		var n int
		if err := store.DB.GetContext(ctx, &n, `SELECT count(*) FROM webhook_deliveries WHERE workspace_id = $1`, ws); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := deliveries("ws_pa"), deliveries("ws_pb"); a != 0 || b != 1 {
		t.Fatalf("with ws_pa's partition held: %d and %d deliveries for ws_pa and ws_pb, want 0 and 1", a, b)
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := r.FanOut(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := deliveries("ws_pa"), deliveries("ws_pb"); a != 1 || b != 1 {
		t.Fatalf("after: %d and %d deliveries for ws_pa and ws_pb, want 1 and 1", a, b)
	}
}
