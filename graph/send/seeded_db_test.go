package send_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seed/seedtest"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// epoch is the fixture's now: 2026-10-15 12:00 UTC.
var epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// links signs nothing: these sends carry no uploaded files.
type links struct{}

func (links) URL(string) string                 { return "" }
func (links) SignAttachments(...*model.Message) {}

// fixture is the send service over a fresh database holding the API tests'
// fixture (rest/testdata/fixture.json), on a clock the test moves.
type fixture struct {
	svc   *send.Service
	store *repo.Store
	now   time.Time
}

func seeded(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{now: epoch}
	clock := func() time.Time { return f.now }
	f.store = seedtest.Store(t, clock)
	f.svc = &send.Service{Store: f.store, Clock: clock, Events: event.Recorder{Clock: clock}, Files: links{}}
	return f
}

// key is a caller of ws_main with every scope, as a key of the fixture:
// a test key, or a live one, limited to channels or websites when given.
func key(live bool, channels, websites []string) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", Livemode: live, Scopes: []string{"*"},
		Channels: channels, WebsiteIDs: websites, Version: auth.ServedVersion})
}

var (
	testKey   = key(false, nil, nil)
	liveKey   = key(true, nil, nil)
	waOnly    = key(false, []string{"whatsapp"}, nil)
	webSecond = key(false, nil, []string{"web_second"})
)

// exec sets up a state no send creates (a bounce, a moved thread, a quota).
func (f *fixture) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := f.store.DB.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// count runs a count query.
func (f *fixture) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := f.store.DB.Get(&n, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// sent sends and fails the test unless the send was accepted.
func (f *fixture) sent(t *testing.T, ctx context.Context, in model.SendMessageInput) *model.Message {
	t.Helper()
	msg, err := f.svc.Send(ctx, send.Request{Input: in})
	if err != nil {
		t.Fatalf("send %+v: %v", in, err)
	}
	return msg
}

// commentThread stores an Instagram comment conversation of ws_main on
// ig_main whose customer commented at commentAt (no comment when zero).
func (f *fixture) commentThread(t *testing.T, id string, commentAt time.Time) {
	t.Helper()
	igUser := "1784" + id
	err := f.store.InTx(t.Context(), func(q repo.Queries) error {
		c := &repo.Contact{ID: "ct_" + id, WorkspaceID: "ws_main", Name: "Commenter", InstagramUserID: &igUser,
			Source: "captured", CreatedAt: epoch, UpdatedAt: epoch}
		if err := q.InsertContact(t.Context(), c); err != nil {
			return err
		}
		conv := repotest.Conversation("ws_main", id, "instagram", false)
		conv.AccountID, conv.WebsiteID, conv.ContactID, conv.IsComment, conv.MessageCount = "ig_main", "web_main", &c.ID, true, 0
		if !commentAt.IsZero() {
			conv.LastInboundAt, conv.MessageCount = &commentAt, 1
		}
		if err := q.UpsertConversation(t.Context(), conv); err != nil || commentAt.IsZero() {
			return err
		}
		m := repotest.Message(conv, "msg_"+id, "inbound", "received", "")
		m.CreatedAt = commentAt
		return q.UpsertMessage(t.Context(), m)
	})
	if err != nil {
		t.Fatalf("comment thread %s: %v", id, err)
	}
}

// accepting stands in for a live provider that takes every message.
type accepting struct{ calls atomic.Int32 }

func (a *accepting) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	a.calls.Add(1)
	return &channels.Receipt{ProviderIDs: []string{"provider_" + m.ID}}, nil
}

// refusing stands in for a live provider that refuses every message.
type refusing struct{ refusal channels.Refusal }

func (r refusing) Send(context.Context, *channels.Message) (*channels.Receipt, error) {
	refusal := r.refusal
	return nil, &refusal
}
