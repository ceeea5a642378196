package repo

import (
	"context"
	"errors"
	"hash/maphash"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lib/pq"
)

// Optimistic transactions. A reply reads its conversation, checks its rules
// and writes the conversation, the message and the event (and binds its
// Idempotency-Key). In a transaction that is four round trips: BEGIN, the
// read with its row lock, the held writes, COMMIT. InTxOptimistic runs the
// same function in two: the read without a lock, noting the row's version
// (its xmin), and the held writes as one statement that commits alone,
// changes the conversation only at the version read and binds the key only
// if the request still owns it. When either changed no row (another writer
// changed the conversation in between, or a retry took the key over), that
// statement fails whole (held_row_required raises serialization_failure,
// migration 0058) and the function runs again in a transaction, as InTx
// runs it: the answer is the one the lock would have given.
//
// While it runs optimistically only reads that take no lock run at once.
// What needs a transaction (a write that runs at once, a read after a held
// write, a read that locks, a held write whose row count is checked after
// it ran; holdRequired checks it in the statement instead) gives the
// optimistic run up before anything was written (errNeedsTx), and the
// function runs again in a transaction. So a function given to
// InTxOptimistic must be one InTx can run a second time: it keeps nothing
// but its result from a run that gave up.

// errNeedsTx ends an optimistic run: its work needs a transaction.
var errNeedsTx = errors.New("repo: this work needs a transaction (optimistic run given up)")

// InTxOptimistic runs fn without a transaction when it only reads without
// locks and holds its writes, the conversation's update at the version it
// read (LockConversationForSend, UpdateConversation); otherwise, or when the
// conversation changed meanwhile, it runs fn again under InTx.
//
// key names the row fn writes at a version (the conversation): after a
// run over it met a change, the next contendedRuns over it go straight to
// InTx, so that a busy conversation's replies queue on its lock instead
// of each reading twice.
func (s *Store) InTxOptimistic(ctx context.Context, key string, fn func(Queries) error) error {
	slot := contendedSlot(key)
	if slot.Load() > 0 {
		slot.Add(-1)
		return s.InTx(ctx, fn)
	}
	q := Queries{q: s.DB, count: s.count, stmts: s.stmts, held: &heldWrites{optimistic: true}}
	err := fn(q)
	if err == nil {
		err = q.commitOptimistic(ctx)
	}
	if q.held.stale {
		slot.Store(contendedRuns)
	}
	// The mark, not only the error: fn may have turned errNeedsTx into an
	// answer of its own.
	if q.held.needsTx {
		return s.InTx(ctx, fn)
	}
	return err
}

// contendedRuns is how many runs over a key go to InTx after a change met.
const contendedRuns = 64

// contended counts, per slot of keys, the runs still to go to InTx. Keys
// that share a slot share its count: at worst a few runs more take the
// lock.
var (
	contended     [1024]atomic.Int32
	contendedSeed = maphash.MakeSeed()
)

func contendedSlot(key string) *atomic.Int32 {
	return &contended[maphash.String(contendedSeed, key)%uint64(len(contended))]
}

// Optimistic says q runs an optimistic run (InTxOptimistic).
func (q Queries) Optimistic() bool { return q.held != nil && q.held.optimistic }

// giveUp marks an optimistic run as needing a transaction.
func (q Queries) giveUp() error {
	q.held.needsTx = true
	return errNeedsTx
}

// beforeStatement is what every statement q runs at once does first: in an
// optimistic run, a write or a read that locks gives the run up
// (errNeedsTx); then the writes held before it are sent (flush), which
// gives an optimistic run up too, as the read would not see them.
func (q Queries) beforeStatement(ctx context.Context, query string, write bool) error {
	if q.Optimistic() && (write || !lockFreeRead(query)) {
		return q.giveUp()
	}
	return q.flush(ctx)
}

// lockFreeReads caches lockFreeRead's answer per statement text.
var lockFreeReads sync.Map

// notLockFree finds what makes a SELECT write or lock.
var notLockFree = regexp.MustCompile(`(?i)\b(insert|update|delete|share|nextval|setval|pg_advisory\w*)\b`)

// lockFreeRead says a statement only reads and takes no row lock: a SELECT
// with no FOR UPDATE/SHARE, no data-modifying CTE and no sequence or
// advisory lock. The statements are the package's own.
func lockFreeRead(query string) bool {
	if v, ok := lockFreeReads.Load(query); ok {
		return v.(bool)
	}
	trimmed := strings.TrimSpace(query)
	ok := len(trimmed) >= 6 && strings.EqualFold(trimmed[:6], "SELECT") && !notLockFree.MatchString(trimmed)
	lockFreeReads.Store(query, ok)
	return ok
}

// holdRequired holds a write that must change a row: an UPDATE by primary
// key at the version the run read (a condition on the row's xmin), or one
// whose condition says the row is still as the run needs it. In an
// optimistic run its statement fails whole when it changes no row, and the
// run starts again in a transaction, where the write runs as it would.
func (q Queries) holdRequired(ctx context.Context, query string, args ...any) error {
	if err := q.execHeld(ctx, query, nil, args...); err != nil {
		return err
	}
	q.held.w[len(q.held.w)-1].required = true
	return nil
}

// holdAtVersion is holdRequired for the update of the row the run read at
// a version, put first among the held writes: the statement locks that
// row before any other it writes, as a transaction locks it at its read,
// so it holds no other row (an Idempotency-Key's) while it waits for that
// one. The writes of one statement do not see each other, so their order
// is only the order of their locks.
func (q Queries) holdAtVersion(ctx context.Context, query string, args ...any) error {
	if err := q.holdRequired(ctx, query, args...); err != nil {
		return err
	}
	w := q.held.w
	last := w[len(w)-1]
	copy(w[1:], w[:len(w)-1])
	w[0] = last
	return nil
}

// commitOptimistic sends an optimistic run's held writes as one statement,
// which commits alone: each one's CTE, the count of a required write
// checked by held_row_required (combineText). A refusal by Postgres (the version check, or any other:
// nothing of the statement stays) gives the run up for a transaction; a
// failure to reach Postgres is the caller's, as a failed COMMIT is.
func (q Queries) commitOptimistic(ctx context.Context) error {
	if q.held.needsTx {
		return errNeedsTx
	}
	w := q.held.w
	q.held.w = nil
	if len(w) == 0 {
		return nil
	}
	query, args := combine(w)
	counts := make([]int64, len(w))
	dest := make([]any, len(w))
	for i := range counts {
		dest[i] = &counts[i]
	}
	err := q.scanRow(ctx, dest, query, args...)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		q.held.stale = pqErr.Code == "40001"
		return q.giveUp()
	}
	return failed(w, err)
}
