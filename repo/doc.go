// Package repo is the Postgres storage of msgsvc: sqlx over lib/pq, raw SQL,
// one file per aggregate. Every query over customer data is scoped by
// workspace and mode (a Scope), so no caller can forget it.
//
// Three mechanisms sit between a method and Postgres. Callers see them only
// as fewer round trips, but each changes when a statement runs:
//
//   - Held writes (held.go). Inside a transaction (Store.InTx), an INSERT of
//     a new row or an UPDATE by primary key whose caller needs no answer (a
//     message or an event inserted, a conversation saved) is held back, and
//     goes with the writes held after it as one statement of data-modifying
//     CTEs when the transaction next runs a statement or commits. Later
//     statements of the transaction see the held writes; only their error
//     comes later, from that statement or from the commit, so it names the
//     write's statement ("held write UPDATE conversations: not found") and
//     unwraps to the error itself (ErrNotFound, a *ConflictError …).
//   - Batched statements (batch.go). Concurrent webhook claims and success
//     records of one process (ClaimWebhookDelivery, RecordWebhookSuccess) go
//     to Postgres as few executions over arrays of inputs, on a pool of
//     their own whose sessions use generic plans. Nothing waits for a batch
//     to fill: a lone call runs at once.
//   - The statement cache (prepared.go). Each pool prepares a statement text
//     once per connection, so Postgres parses and plans it once; a
//     transaction runs a text new to the pool unprepared and has it prepared
//     in the background. SetPrepare(false) turns it off for a pooler that
//     cannot carry prepared statements (MSGSVC_DB_PREPARE=false).
//
// Store.Statements counts the statements run, so a test bounds a path's
// round trips.
package repo
