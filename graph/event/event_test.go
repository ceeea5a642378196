package event_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// rows records what a recorder writes, as a transaction would.
type rows struct {
	events     []*repo.Event
	statements int
	aiWork     []string
}

func (r *rows) InsertEvent(_ context.Context, e *repo.Event) error {
	r.events, r.statements = append(r.events, e), r.statements+1
	return nil
}

func (r *rows) InsertEvents(_ context.Context, es []*repo.Event) error {
	r.events, r.statements = append(r.events, es...), r.statements+1
	return nil
}

func (r *rows) InsertAIWork(_ context.Context, w *repo.AIWork) error {
	r.aiWork = append(r.aiWork, w.MessageID)
	return nil
}

// TestRecordAllRecordsAsRecordDoes: RecordAll writes, in one statement and
// in the order given, the rows Record writes one by one (ids apart), and
// queues the same AI work.
func TestRecordAllRecordsAsRecordDoes(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 2, 0, time.UTC)
	rec := event.Recorder{Clock: func() time.Time { return now }}
	text := "hi"
	aiConv := &model.Conversation{ID: "conv_ai", Channel: "website", WebsiteID: "web_1", Mode: "ai", Status: "open"}
	humanConv := &model.Conversation{ID: "conv_h", Channel: "whatsapp", Mode: "human", Status: "open"}
	batch := []event.Pending{
		{Scope: repo.Scope{WorkspaceID: "ws_a"}, Type: event.MessageStatus, Conv: humanConv,
			Data: &model.Message{ID: "msg_1", Direction: "outbound", Status: "delivered", Text: &text}},
		{Scope: repo.Scope{WorkspaceID: "ws_b", Livemode: true}, Type: event.MessageReceived, Conv: aiConv,
			Data: &model.Message{ID: "msg_2", Direction: "inbound", Status: "received"}},
		{Scope: repo.Scope{WorkspaceID: "ws_a"}, Type: event.ContactCreated, Data: map[string]string{"id": "ct_1"}},
	}
	var one, all rows
	for _, p := range batch {
		if err := rec.Record(context.Background(), &one, p.Scope, p.Type, p.Conv, p.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.RecordAll(context.Background(), &all, batch); err != nil {
		t.Fatal(err)
	}
	if all.statements != 1 || len(all.events) != len(batch) {
		t.Fatalf("RecordAll wrote %d events in %d statements, want %d in 1", len(all.events), all.statements, len(batch))
	}
	for i := range batch {
		if got, want := withoutID(t, all.events[i]), withoutID(t, one.events[i]); got != want {
			t.Errorf("event %d:\n%s\nwant as Record writes it:\n%s", i, got, want)
		}
	}
	if len(all.aiWork) != 1 || all.aiWork[0] != "msg_2" || len(one.aiWork) != 1 {
		t.Errorf("AI work queued %v, Record queued %v; want msg_2", all.aiWork, one.aiWork)
	}
}

// withoutID is an event row and its envelope as JSON, its id left out.
func withoutID(t *testing.T, e *repo.Event) string {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal(e.Envelope, &env); err != nil {
		t.Fatal(err)
	}
	if env["id"] != e.ID {
		t.Errorf("envelope id %v, row id %s", env["id"], e.ID)
	}
	row := *e
	row.ID, row.Envelope = "", nil
	delete(env, "id")
	out, err := json.Marshal(struct {
		Row      repo.Event
		Envelope map[string]any
	}{row, env})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// announcements records which notice each commit gave the job queue.
type announcements []string

func (a *announcements) EventsRecorded(context.Context) error {
	*a = append(*a, "fan-out and dispatch")
	return nil
}

func (a *announcements) FanOutDue(context.Context) error {
	*a = append(*a, "fan-out")
	return nil
}

// TestSendsAnnounceTheFanOutAlone: a commit of the send pipeline asks the
// job queue for the fan-out only; any other commit, which may owe the AI
// an answer or free an agent, asks for a dispatch pass as well.
func TestSendsAnnounceTheFanOutAlone(t *testing.T) {
	var got announcements
	r := event.Recorder{Queue: &got}
	r.CommittedSends(t.Context())
	r.Committed(t.Context())
	if want := (announcements{"fan-out", "fan-out and dispatch"}); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("announced %q, want %q", got, want)
	}
}
