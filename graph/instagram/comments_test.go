package instagram_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

type env struct {
	store *repo.Store
	svc   *instagram.Service
	scope repo.Scope
	acc   *repo.Account
}

// setup seeds the test fixture and returns its first Instagram account, in
// live mode.
func setup(t *testing.T) *env {
	t.Helper()
	clock := resttest.NewClock(resttest.Epoch)
	store := repotest.NewStore(t)
	f, err := os.Open(resttest.FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fixture, err := seed.ParseFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&seed.Seeder{Store: store, Clock: clock.Now}).Seed(t.Context(), fixture); err != nil {
		t.Fatal(err)
	}
	var ws string
	if err := store.DB.Get(&ws, `SELECT workspace_id FROM channel_accounts WHERE channel = 'instagram' ORDER BY id LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	scope := repo.Scope{WorkspaceID: ws, Livemode: true}
	accs, err := store.Accounts(t.Context(), scope, "instagram")
	if err != nil || len(accs) == 0 {
		t.Fatal(accs, err)
	}
	in := &inbound.Service{Store: store, Clock: clock.Now, Events: event.Recorder{Clock: clock.Now}}
	return &env{store: store, svc: &instagram.Service{Inbound: in}, scope: scope, acc: &accs[0]}
}

func comment(id, from, media, text string) *meta.InstagramComment {
	return &meta.InstagramComment{InstagramRoute: meta.InstagramRoute{AccountID: "17841405822304914"}, Field: "comments",
		ID: id, Text: text, FromID: from, FromUsername: "ana", MediaID: media, Time: time.Unix(1700000000, 0)}
}

func TestCommentThreadPerCommenterAndMedia(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	first, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c1", "IGSID-ana", "media-1", "price?"))
	if err != nil || first == nil {
		t.Fatal(first, err)
	}
	if first.Message.Type != "comment" || first.Message.Text == nil || *first.Message.Text != "price?" || !first.Livemode {
		t.Fatalf("message %+v", first.Message)
	}
	same, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c2", "IGSID-ana", "media-1", "hello?"))
	if err != nil || same.Conversation.ID != first.Conversation.ID {
		t.Fatalf("a second comment on the same media: %+v %v", same, err)
	}
	other, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c3", "IGSID-ana", "media-2", "and this one?"))
	if err != nil || other.Conversation.ID == first.Conversation.ID {
		t.Fatalf("a comment on another media joined the first thread: %v", err)
	}
	bo, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c4", "IGSID-bo", "media-1", "me too"))
	if err != nil || bo.Conversation.ID == first.Conversation.ID {
		t.Fatalf("another commenter joined ana's thread: %v", err)
	}
	var isComment bool
	if err := e.store.DB.Get(&isComment, `SELECT is_comment FROM conversations WHERE id = $1`, first.Conversation.ID); err != nil || !isComment {
		t.Fatalf("the thread is no comment conversation: %v", err)
	}
	var name, igid string
	if err := e.store.DB.QueryRow(`SELECT name, instagram_user_id FROM contacts c JOIN conversations v ON v.contact_id = c.id
		WHERE v.id = $1`, first.Conversation.ID).Scan(&name, &igid); err != nil || name != "ana" || igid != "IGSID-ana" {
		t.Fatalf("contact %q %q %v", name, igid, err)
	}
	rec, err := e.store.InstagramCommentOf(ctx, same.Message.ID)
	if err != nil || rec.CommentID != "c2" || rec.MediaID != "media-1" || rec.ConversationID != first.Conversation.ID {
		t.Fatalf("comment record %+v %v", rec, err)
	}
}

func TestCommentRetriedAndOwnIgnored(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	if _, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c1", "IGSID-ana", "media-1", "price?")); err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.Comment(ctx, e.scope, e.acc, comment("c1", "IGSID-ana", "media-1", "price?"))
	if err != nil || again != nil {
		t.Fatalf("a retried comment: %+v %v", again, err)
	}
	own := comment("c9", "17841405822304914", "media-1", "Thanks!")
	if out, err := e.svc.Comment(ctx, e.scope, e.acc, own); err != nil || out != nil {
		t.Fatalf("the account's own reply: %+v %v", out, err)
	}
	var n int
	if err := e.store.DB.Get(&n, `SELECT count(*) FROM messages WHERE workspace_id = $1 AND livemode AND channel = 'instagram'`, e.scope.WorkspaceID); err != nil || n != 1 {
		t.Fatalf("%d live instagram messages, want 1 (%v)", n, err)
	}
	if _, err := e.svc.Comment(ctx, e.scope, e.acc, comment("", "IGSID-ana", "media-1", "x")); err == nil {
		t.Fatal("a comment without id was taken")
	}
}
