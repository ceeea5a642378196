package repo_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// batchFixture is sendFixture with batches of ws_1's test mode (two made in
// the same instant), one of its live mode and one of ws_2, and the queued
// messages of some of them, each in a status.
func batchFixture(t *testing.T) *repo.Store {
	t.Helper()
	store := sendFixture(t)
	t0 := time.Date(2026, 3, 4, 5, 0, 0, 0, time.UTC)
	batches := []repo.MessageBatch{
		{ID: "batch_a", WorkspaceID: "ws_1", Total: 1, CreatedAt: t0},
		{ID: "batch_b", WorkspaceID: "ws_1", Total: 1, CreatedAt: t0},
		{ID: "batch_c", WorkspaceID: "ws_1", Total: 2, CreatedAt: t0.Add(time.Minute)},
		{ID: "batch_d", WorkspaceID: "ws_1", Total: 5, Refused: 1, CreatedAt: t0.Add(2 * time.Minute)},
		{ID: "batch_live", WorkspaceID: "ws_1", Livemode: true, Total: 1, CreatedAt: t0.Add(3 * time.Minute)},
		{ID: "batch_other", WorkspaceID: "ws_2", Total: 1, CreatedAt: t0.Add(3 * time.Minute)},
	}
	inTx(t, store, func(q repo.Queries) error {
		for i := range batches {
			if err := q.InsertMessageBatch(t.Context(), &batches[i]); err != nil {
				return err
			}
		}
		return nil
	})
	// batch_d: one message in each status a batch's message moves through
	// first; batch_c: both delivered; the live message shares batch_d's
	// id but not its mode.
	queue := func(id, batch, status string, live bool) {
		conv := "conv_wa"
		if live {
			conv = "conv_live"
		}
		storeSent(t, store, id, conv, live, sentAt, func(m *repo.Message) { m.Status = status })
		inTx(t, store, func(q repo.Queries) error {
			return q.InsertQueuedSend(t.Context(), &repo.QueuedSend{MessageID: id, WorkspaceID: "ws_1", Livemode: live,
				PaceKey: "wa_1", AccountID: "wa_1", Channel: "whatsapp", Recipient: "+15550002", BatchID: &batch,
				Payload: repo.JSONB(`{}`), State: "queued", QueuedAt: sentAt, NotBefore: sentAt})
		})
	}
	for i, status := range []string{"queued", "sending", "sent", "failed"} {
		queue(fmt.Sprintf("msg_d%d", i), "batch_d", status, false)
	}
	queue("msg_c1", "batch_c", "delivered", false)
	queue("msg_c2", "batch_c", "delivered", false)
	queue("msg_live", "batch_d", "queued", true)
	return store
}

// The portal's list: a workspace's batches of one mode, newest first, in
// keyset pages that neither skip nor repeat batches made in the same
// instant.
func TestMessageBatchesPages(t *testing.T) {
	store := batchFixture(t)
	scope := repo.Scope{WorkspaceID: "ws_1"}
	var pages [][]string
	page := repo.Page{Limit: 2}
	for range 4 {
		var rows []repo.MessageBatch
		inTx(t, store, func(q repo.Queries) (err error) {
			rows, err = q.MessageBatches(t.Context(), scope, page)
			return err
		})
		var ids []string
		for _, b := range rows {
			ids = append(ids, b.ID)
		}
		pages = append(pages, ids)
		if len(rows) <= page.Limit {
			break
		}
		last := rows[page.Limit-1]
		page.After = &repo.Position{At: last.CreatedAt, ID: last.ID}
	}
	// Each page holds one row more than its limit when another follows.
	want := [][]string{{"batch_d", "batch_c", "batch_b"}, {"batch_b", "batch_a"}}
	if fmt.Sprint(pages) != fmt.Sprint(want) {
		t.Errorf("pages %v, want %v", pages, want)
	}
	var live []repo.MessageBatch
	inTx(t, store, func(q repo.Queries) (err error) {
		live, err = q.MessageBatches(t.Context(), repo.Scope{WorkspaceID: "ws_1", Livemode: true}, repo.Page{Limit: 10})
		return err
	})
	if len(live) != 1 || live[0].ID != "batch_live" || live[0].Total != 1 {
		t.Errorf("live mode lists %+v, want batch_live alone", live)
	}
}

// The counts of several batches in one statement: per batch, its messages
// of the scope's mode by their status now; a batch without messages is
// missing.
func TestBatchesStatusCounts(t *testing.T) {
	store := batchFixture(t)
	var counts map[string]map[string]int
	before := store.Statements()
	inTx(t, store, func(q repo.Queries) (err error) {
		counts, err = q.BatchesStatusCounts(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, []string{"batch_d", "batch_c", "batch_b"})
		return err
	})
	if used := store.Statements() - before; used != 1 {
		t.Errorf("%d statements for the counts of 3 batches, want 1", used)
	}
	want := map[string]map[string]int{
		"batch_d": {"queued": 1, "sending": 1, "sent": 1, "failed": 1},
		"batch_c": {"delivered": 2},
	}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
	inTx(t, store, func(q repo.Queries) (err error) {
		counts, err = q.BatchesStatusCounts(t.Context(), repo.Scope{WorkspaceID: "ws_1", Livemode: true}, []string{"batch_d"})
		return err
	})
	if fmt.Sprint(counts) != fmt.Sprint(map[string]map[string]int{"batch_d": {"queued": 1}}) {
		t.Errorf("batch_d's live counts %v, want its one live queued message", counts)
	}
	inTx(t, store, func(q repo.Queries) (err error) {
		counts, err = q.BatchesStatusCounts(t.Context(), repo.Scope{WorkspaceID: "ws_2"}, []string{"batch_d"})
		return err
	})
	if len(counts) != 0 {
		t.Errorf("another workspace counts %v of batch_d, want none", counts)
	}
}

// TestMessageBatchesPlan: a page of batches, the first or one after a
// position, is one range of message_batches_list in the index's order, not
// a sort of the workspace's batches (5,000 of each mode here, 25 of a mode
// made in each instant). Checked on the plan, not on time.
func TestMessageBatchesPlan(t *testing.T) {
	store := sendFixture(t)
	for _, q := range []string{
		`INSERT INTO message_batches (id, workspace_id, livemode, total, refused, created_at)
			SELECT 'batch_' || lpad(g::text, 5, '0'), 'ws_1', g % 2 = 0, 10, 0,
				timestamptz '2026-03-04 05:00:00Z' + (g / 50) * interval '1 second' FROM generate_series(1, 10000) g`,
		`ANALYZE message_batches`,
	} {
		if _, err := store.DB.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Times as literals: explain writes the arguments into the statement.
	for _, args := range [][]any{
		{"ws_1", true, "", "0001-01-01T00:00:00Z", 26},
		{"ws_1", true, "batch_03010", "2026-03-04T05:01:00Z", 26},
	} {
		plan := explain(t, store, repo.MessageBatchesQuery, args...)
		if !strings.Contains(plan, "message_batches_list") || strings.Contains(plan, "Sort") {
			t.Errorf("a page after %q is not one range of message_batches_list:\n%s", args[2], plan)
		}
	}
}
