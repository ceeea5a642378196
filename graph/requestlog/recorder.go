// Package requestlog is the /v1 request log (issue 39): the Recorder takes
// one Entry per authenticated request without waiting and writes them in
// batches, with the keys' last use; the Service lists them for the portal
// and purges them after the retention period.
package requestlog

import (
	"context"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
)

// Entry is one request: what the log keeps (repo.RequestLog), never a
// body, header or query. A value, so Record allocates nothing.
type Entry struct {
	RequestID, WorkspaceID, KeyID string
	Livemode                      bool
	At                            time.Time
	// Method and Path are the request's method and route pattern.
	Method, Path string
	Status       int
	// ErrorCode is the error answered ("" for a success).
	ErrorCode string
	Latency   time.Duration
	// ConversationID is the conversation the request touched, if one.
	ConversationID string
}

// Writer writes batches; repo.Store is one.
type Writer interface {
	InsertRequestLogs(ctx context.Context, logs []repo.RequestLog) error
	TouchAPIKeys(ctx context.Context, ids []string, at []time.Time) error
}

// Defaults of a Recorder.
const (
	DefaultBuffer    = 8192
	DefaultBatch     = 500
	DefaultFlush     = time.Second
	DefaultKeysFlush = 30 * time.Second
)

// FinalFlush is how long Run still writes what it holds once its context
// ends (a process stopping).
const FinalFlush = 5 * time.Second

// Recorder buffers entries in a bounded channel and writes them from Run:
// a batch every FlushEvery or as soon as Batch entries wait, in one
// multi-row INSERT; the keys used since the last key flush, with their
// last time, every KeysEvery in one UPDATE. A full buffer drops the entry
// (counted in msgsvc_request_log_rows_total{outcome="dropped"}): a request
// never waits for the log.
type Recorder struct {
	Store      Writer
	FlushEvery time.Duration
	KeysEvery  time.Duration
	Batch      int

	ch chan Entry
	// used are the keys' last use since the last key flush (Run's own).
	used map[string]time.Time
}

// NewRecorder returns a recorder with a buffer of size entries (0: the
// default) writing to store.
func NewRecorder(store Writer, size int) *Recorder {
	if size <= 0 {
		size = DefaultBuffer
	}
	return &Recorder{Store: store, FlushEvery: DefaultFlush, KeysEvery: DefaultKeysFlush, Batch: DefaultBatch,
		ch: make(chan Entry, size), used: map[string]time.Time{}}
}

// Record queues an entry; a full buffer drops it. Safe on a nil Recorder.
func (r *Recorder) Record(e Entry) {
	if r == nil {
		return
	}
	select {
	case r.ch <- e:
	default:
		metrics.ObserveRequestLogDropped()
	}
}

// Run writes batches until ctx ends, then writes what is buffered.
func (r *Recorder) Run(ctx context.Context) {
	tick := time.NewTicker(r.FlushEvery)
	defer tick.Stop()
	keys := time.NewTicker(r.KeysEvery)
	defer keys.Stop()
	batch := make([]repo.RequestLog, 0, r.Batch)
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), FinalFlush)
			batch = r.drain(final, batch)
			r.write(final, batch)
			r.flushKeys(final)
			cancel()
			return
		case e := <-r.ch:
			batch = r.add(batch, e)
			if len(batch) >= r.Batch {
				batch = r.write(ctx, batch)
			}
		case <-tick.C:
			batch = r.write(ctx, batch)
		case <-keys.C:
			r.flushKeys(ctx)
		}
	}
}

// Flush writes everything buffered now, keys' last use included (tests,
// shutdown). It must not run beside Run.
func (r *Recorder) Flush(ctx context.Context) {
	batch := r.drain(ctx, nil)
	r.write(ctx, batch)
	r.flushKeys(ctx)
}

// drain takes what waits in the buffer, writing full batches on the way.
func (r *Recorder) drain(ctx context.Context, batch []repo.RequestLog) []repo.RequestLog {
	for {
		select {
		case e := <-r.ch:
			batch = r.add(batch, e)
			if len(batch) >= r.Batch {
				batch = r.write(ctx, batch)
			}
		default:
			return batch
		}
	}
}

func (r *Recorder) add(batch []repo.RequestLog, e Entry) []repo.RequestLog {
	if e.KeyID != "" && e.At.After(r.used[e.KeyID]) {
		r.used[e.KeyID] = e.At
	}
	row := repo.RequestLog{RequestID: e.RequestID, WorkspaceID: e.WorkspaceID, Livemode: e.Livemode, CreatedAt: e.At,
		KeyID: e.KeyID, Method: e.Method, Path: e.Path, Status: e.Status,
		LatencyMS: float64(e.Latency.Microseconds()) / 1000}
	if e.ErrorCode != "" {
		row.ErrorCode = &e.ErrorCode
	}
	if e.ConversationID != "" {
		row.ConversationID = &e.ConversationID
	}
	return append(batch, row)
}

// write writes a batch and returns the emptied slice; a failed batch is
// logged, counted and dropped (the log is not worth a request's wait or
// an unbounded memory).
func (r *Recorder) write(ctx context.Context, batch []repo.RequestLog) []repo.RequestLog {
	if len(batch) == 0 {
		return batch
	}
	err := r.Store.InsertRequestLogs(ctx, batch)
	metrics.ObserveRequestLogBatch(len(batch), err)
	if err != nil && ctx.Err() == nil {
		slog.Warn("request log: a batch was not written", "rows", len(batch), "err", err)
	}
	clear(batch)
	return batch[:0]
}

// flushKeys writes the keys' last use in one statement.
func (r *Recorder) flushKeys(ctx context.Context) {
	if len(r.used) == 0 {
		return
	}
	ids, at := make([]string, 0, len(r.used)), make([]time.Time, 0, len(r.used))
	for id, t := range r.used {
		ids, at = append(ids, id), append(at, t)
	}
	if err := r.Store.TouchAPIKeys(ctx, ids, at); err != nil {
		if ctx.Err() == nil {
			slog.Warn("request log: keys' last use not written; retried at the next flush", "keys", len(ids), "err", err)
		}
		return
	}
	clear(r.used)
}
