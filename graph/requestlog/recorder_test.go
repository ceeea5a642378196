package requestlog_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/repo"
)

// writer records the batches a recorder writes.
type writer struct {
	batches [][]repo.RequestLog
	touched map[string]time.Time
	touches int
}

func (w *writer) InsertRequestLogs(_ context.Context, logs []repo.RequestLog) error {
	w.batches = append(w.batches, append([]repo.RequestLog(nil), logs...))
	return nil
}

func (w *writer) TouchAPIKeys(_ context.Context, ids []string, at []time.Time) error {
	w.touches++
	for i, id := range ids {
		w.touched[id] = at[i]
	}
	return nil
}

var t0 = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

func entry(i int, key string) requestlog.Entry {
	return requestlog.Entry{RequestID: fmt.Sprintf("req_%03d", i), WorkspaceID: "ws_main", KeyID: key, At: t0.Add(time.Duration(i) * time.Second),
		Method: "GET", Path: "/v1/conversations/{id}", Status: 200, Latency: 1500 * time.Microsecond, ConversationID: "conv_1"}
}

func TestBatchesAndKeysLastUse(t *testing.T) {
	w := &writer{touched: map[string]time.Time{}}
	r := requestlog.NewRecorder(w, 100)
	r.Batch = 40
	for i := range 90 {
		key := "key_a"
		if i%3 == 0 {
			key = "key_b"
		}
		r.Record(entry(i, key))
	}
	r.Flush(context.Background())
	if len(w.batches) != 3 || len(w.batches[0]) != 40 || len(w.batches[2]) != 10 {
		t.Fatalf("batches of %v rows, want 40, 40, 10", sizes(w.batches))
	}
	first := w.batches[0][0]
	if first.RequestID != "req_000" || first.LatencyMS != 1.5 || first.ErrorCode != nil || *first.ConversationID != "conv_1" {
		t.Errorf("row %+v", first)
	}
	if w.touches != 1 || !w.touched["key_a"].Equal(t0.Add(89*time.Second)) || !w.touched["key_b"].Equal(t0.Add(87*time.Second)) {
		t.Errorf("%d touches, last use %v", w.touches, w.touched)
	}
	// Nothing new: nothing written.
	r.Flush(context.Background())
	if len(w.batches) != 3 || w.touches != 1 {
		t.Errorf("an empty flush wrote %d batches, %d touches", len(w.batches)-3, w.touches-1)
	}
}

func TestAFullBufferDropsWithoutWaiting(t *testing.T) {
	w := &writer{touched: map[string]time.Time{}}
	r := requestlog.NewRecorder(w, 5)
	for i := range 8 {
		r.Record(entry(i, "key_a")) // would block past 5 if it waited
	}
	r.Flush(context.Background())
	if n := len(w.batches[0]); len(w.batches) != 1 || n != 5 {
		t.Errorf("batches %v, want one of the 5 buffered", sizes(w.batches))
	}
	var nilRecorder *requestlog.Recorder
	nilRecorder.Record(entry(0, "key_a")) // no log configured: nothing, no panic
}

func sizes(b [][]repo.RequestLog) []int {
	out := make([]int, len(b))
	for i := range b {
		out[i] = len(b[i])
	}
	return out
}

// BenchmarkRecord is the cost a request pays for its log row.
func BenchmarkRecord(b *testing.B) {
	r := requestlog.NewRecorder(&writer{touched: map[string]time.Time{}}, 1<<10)
	e := entry(1, "key_a")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(e)
		if i%1000 == 999 {
			r.Flush(context.Background())
		}
	}
}
