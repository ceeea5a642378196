package send_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

const delay = 2 * time.Second

// commits counts the commits that announced events (the fan-out's wake-up).
type commits struct{ n atomic.Int64 }

func (c *commits) Committed(context.Context) { c.n.Add(1) }

// sandboxSends is a seeded API whose test key sent n sandbox messages,
// round robin over convs new website conversations, every fourth with
// simulate:failed; ids and convOf are in send order.
type sandboxSends struct {
	*resttest.API
	commits *commits
	ids     []string
	convOf  []int
	failing map[string]bool
}

func newSandboxSends(t *testing.T, convs, n int) *sandboxSends {
	s := &sandboxSends{commits: &commits{}, failing: map[string]bool{}}
	s.API = resttest.New(t, func(a *resttest.API) { a.Config.CommitListener = s.commits })
	conv := make([]string, convs)
	for i := range conv {
		conv[i] = s.Inbound("website", fmt.Sprintf("visitor-sandbox-%d", i), "hello")["conversation"].(map[string]any)["id"].(string)
	}
	for k := range n {
		text := fmt.Sprintf("message %d", k)
		if k%4 == 3 {
			text += " simulate:failed"
		}
		msg := s.Want(s.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": conv[k%convs], "text": text}), 201, "").Data()
		s.ids, s.convOf = append(s.ids, msg["id"].(string)), append(s.convOf, k%convs)
		s.failing[msg["id"].(string)] = k%4 == 3
	}
	return s
}

// pass runs DeliverSandbox and returns how many statements it ran and how
// many commits it announced.
func (s *sandboxSends) pass(t *testing.T, ctx context.Context) (statements, announced int64) {
	t.Helper()
	before, notices := s.Store.Statements(), s.commits.n.Load()
	if err := s.Resolver.Sends.DeliverSandbox(ctx, delay); err != nil {
		t.Fatal(err)
	}
	return s.Store.Statements() - before, s.commits.n.Load() - notices
}

// message is a message as GET /v1/messages/{id} shows it.
func (s *sandboxSends) message(id string) map[string]any {
	return s.Want(s.Do("GET", "/v1/messages/"+id, "test_all", nil), 200, "").Data()
}

// holdPass runs the statement of another worker's pass taking at most limit
// messages, and holds what it locked until the returned func is called.
func holdPass(t *testing.T, store *repo.Store, limit int) (locked []string, release func()) {
	t.Helper()
	got, done, stop := make(chan []string, 1), make(chan error, 1), make(chan struct{})
	go func() {
		done <- store.InTx(context.Background(), func(q repo.Queries) error {
			due, err := q.LockDueSandboxMessages(context.Background(), resttest.Epoch, limit)
			var ids []string
			for _, d := range due {
				ids = append(ids, d.ID)
			}
			got <- ids
			if err == nil {
				<-stop
			}
			return errors.Join(err, errors.New("rolled back"))
		})
	}()
	locked = <-got
	return locked, func() {
		close(stop)
		if err := <-done; err == nil || err.Error() != "rolled back" {
			t.Errorf("the other pass: %v", err)
		}
	}
}

// TestSandboxPassBatches: one pass completes every due sandbox message it
// can lock in one transaction of three statements, announced once: it
// skips, without waiting, what another pass and another transaction hold
// (they complete on the next pass) and leaves a message settled already
// alone. Statuses, deliveries and events are exactly right, each
// message.status after its message's message.sent, a pass's events in the
// messages' order.
func TestSandboxPassBatches(t *testing.T) {
	s := newSandboxSends(t, 5, 20)
	settled := s.ids[0] // settled by another writer before any pass
	if _, err := s.Store.DB.Exec(`UPDATE messages SET status = 'failed', delivery = '{"failed_at": "2026-10-15T12:00:00.000Z"}'
		WHERE id = $1`, settled); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(delay)
	otherPass, release := holdPass(t, s.Store, 2) // ids 1 and 2, with conversations 1 and 2
	if strings.Join(otherPass, " ") != s.ids[1]+" "+s.ids[2] {
		t.Fatalf("the other pass took %v, want %v", otherPass, s.ids[1:3])
	}
	holder, err := s.Store.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // released below
	if _, err := holder.Exec(`SELECT 1 FROM messages WHERE id = $1 FOR UPDATE`, s.ids[3]); err != nil {
		t.Fatal(err)
	}
	first := s.Clock.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a pass that waited would end here
	defer cancel()
	if stmts, announced := s.pass(t, ctx); stmts != 3 || announced != 1 {
		t.Errorf("the first pass ran %d statements and announced %d commits, want 3 and 1", stmts, announced)
	}
	heldBack := func(k int) bool { return k == 3 || s.convOf[k] == 1 || s.convOf[k] == 2 }
	for k, id := range s.ids[1:] {
		k++
		if got := s.message(id)["status"]; (got == "sent") != heldBack(k) {
			t.Errorf("message %d (conversation %d) is %v after the first pass", k, s.convOf[k], got)
		}
	}
	release()
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(time.Second)
	second := s.Clock.Now()
	if stmts, announced := s.pass(t, ctx); stmts != 3 || announced != 1 {
		t.Errorf("the second pass ran %d statements and announced %d commits, want 3 and 1", stmts, announced)
	}
	if stmts, announced := s.pass(t, ctx); stmts != 1 || announced != 0 {
		t.Errorf("a pass with nothing due ran %d statements and announced %d commits, want 1 and 0", stmts, announced)
	}
	s.checkSettled(t, settled, func(k int) time.Time {
		if heldBack(k) {
			return second
		}
		return first
	})
}

// checkSettled checks every message but skip settled at its time, and the
// events of all.
func (s *sandboxSends) checkSettled(t *testing.T, skip string, at func(k int) time.Time) {
	t.Helper()
	if d := s.message(skip)["delivery"].(map[string]any); s.message(skip)["status"] != "failed" || d["failed_at"] != "2026-10-15T12:00:00.000Z" {
		t.Errorf("the message settled before: %v", d)
	}
	shown := map[string]map[string]any{}
	for k, id := range s.ids {
		if id == skip {
			continue
		}
		m := s.message(id)
		shown[id] = m
		d, when := m["delivery"].(map[string]any), at(k).Format("2006-01-02T15:04:05.000Z")
		e, _ := d["error"].(map[string]any)
		switch {
		case s.failing[id] && (m["status"] != "failed" || d["failed_at"] != when || e["code"] != "simulated_failure" || d["delivered_at"] != nil):
			t.Errorf("message %d, simulate:failed: %v %v, want failed at %s", k, m["status"], d, when)
		case !s.failing[id] && (m["status"] != "delivered" || d["delivered_at"] != when || e != nil || d["failed_at"] != nil):
			t.Errorf("message %d: %v %v, want delivered at %s", k, m["status"], d, when)
		case d["sent_at"] == nil:
			t.Errorf("message %d lost its sent_at: %v", k, d)
		}
	}
	s.checkEvents(t, shown, at)
}

// checkEvents checks the message.sent and message.status events of the
// messages: one message.status each, carrying the message as the API shows
// it, after its message.sent; the status events in the order of their
// passes, and within a pass of the messages.
func (s *sandboxSends) checkEvents(t *testing.T, shown map[string]map[string]any, at func(k int) time.Time) {
	t.Helper()
	var rows []struct {
		Seq      int64      `db:"seq"`
		Type     string     `db:"type"`
		Conv     *string    `db:"conversation_id"`
		Envelope repo.JSONB `db:"envelope"`
	}
	if err := s.Store.DB.Select(&rows, `SELECT seq, type, conversation_id, envelope FROM events
		WHERE workspace_id = 'ws_main' AND type IN ('message.sent', 'message.status') ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for k, id := range s.ids {
		index[id] = k
	}
	sentSeq, statusSeq := map[string]int64{}, map[string]int64{}
	last := -1
	for _, r := range rows {
		var env struct {
			Type      string         `json:"type"`
			Livemode  bool           `json:"livemode"`
			Channel   string         `json:"channel"`
			WebsiteID *string        `json:"website_id"`
			Data      map[string]any `json:"data"`
		}
		if err := json.Unmarshal(r.Envelope, &env); err != nil {
			t.Fatal(err)
		}
		id, _ := env.Data["id"].(string)
		if _, ours := index[id]; !ours {
			continue
		}
		if r.Type == "message.sent" {
			sentSeq[id] = r.Seq
			continue
		}
		if _, twice := statusSeq[id]; twice {
			t.Errorf("message %d has two message.status events", index[id])
		}
		statusSeq[id] = r.Seq
		if r.Conv == nil || *r.Conv != shown[id]["conversation_id"] || env.Type != "message.status" || env.Livemode ||
			env.Channel != "website" || env.WebsiteID == nil || !reflect.DeepEqual(env.Data, shown[id]) {
			t.Errorf("message.status of message %d: %s\nthe API shows %v", index[id], r.Envelope, shown[id])
		}
		// Ordered by pass, then by message.
		order := int(at(index[id]).Sub(resttest.Epoch)/time.Second)*len(s.ids) + index[id]
		if order < last {
			t.Errorf("message.status of message %d (seq %d) came out of order", index[id], r.Seq)
		}
		last = order
	}
	for id := range shown {
		if statusSeq[id] == 0 || sentSeq[id] == 0 || statusSeq[id] < sentSeq[id] {
			t.Errorf("message %d: message.sent at seq %d, message.status at %d", index[id], sentSeq[id], statusSeq[id])
		}
	}
}

// TestSandboxPassLoopsWhileBatchesAreFull: a pass goes on while its batches
// come back full, each one transaction of three statements announced once,
// and stops at the first that is not.
func TestSandboxPassLoopsWhileBatchesAreFull(t *testing.T) {
	send.SetSandboxBatch(t, 4)
	s := newSandboxSends(t, 3, 10)
	s.Clock.Advance(delay)
	if stmts, announced := s.pass(t, t.Context()); stmts != 9 || announced != 3 {
		t.Errorf("10 messages in batches of 4: %d statements and %d commits announced, want 9 and 3", stmts, announced)
	}
	for k, id := range s.ids {
		if got := s.message(id)["status"]; got == "sent" {
			t.Errorf("message %d is still sent", k)
		}
	}
}
