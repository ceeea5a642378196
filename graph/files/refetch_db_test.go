package files

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// refetchFixture stores an inbound WhatsApp message whose two media files
// (file_a, file_b) failed to download, and returns the caller's context.
func refetchFixture(t *testing.T) (*repo.Store, *Service, context.Context) {
	t.Helper()
	store := repotest.NewStore(t)
	conv := repotest.Conversation("ws_1", "conv_1", "whatsapp", true)
	msg := repotest.Message(conv, "msg_1", "inbound", "received", "")
	var atts []*model.Attachment
	for _, id := range []string{"file_a", "file_b"} {
		atts = append(atts, &model.Attachment{ID: id, Filename: id + ".jpg", ContentType: "image/jpeg",
			ProviderMediaID: "media_" + id, Status: "failed", Error: "the CDN link expired"})
	}
	raw, err := json.Marshal(atts)
	if err != nil {
		t.Fatal(err)
	}
	msg.Attachments = raw
	repotest.Thread(t, store, conv, msg)
	for _, a := range atts {
		media := a.ProviderMediaID
		if err := store.InsertFile(t.Context(), &repo.File{ID: a.ID, WorkspaceID: "ws_1", Livemode: true, Filename: a.Filename,
			ContentType: a.ContentType, Content: []byte{}, MessageID: &msg.ID, CreatedAt: time.Now(), ProviderMediaID: &media}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &Service{Store: store, Clock: time.Now, Secrets: signing.Secrets{"secret-0123456789"}}
	ctx := auth.WithActor(t.Context(), &auth.Actor{WorkspaceID: "ws_1", Livemode: true, Scopes: []string{"*"}})
	return store, svc, ctx
}

// statuses is each attachment's status as stored on msg_1.
func statuses(t *testing.T, store *repo.Store) map[string]string {
	t.Helper()
	var raw []byte
	if err := store.InTx(t.Context(), func(q repo.Queries) error {
		_, m, err := q.LockConversationThenMessage(t.Context(), repo.Scope{WorkspaceID: "ws_1", Livemode: true}, "msg_1")
		if err == nil {
			raw = m.Attachments
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var atts []*model.Attachment
	if err := json.Unmarshal(raw, &atts); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range atts {
		out[a.ID] = a.Status
	}
	return out
}

func fetched(context.Context, repo.Scope, string, string, string, string) (string, []byte, error) {
	return "image/jpeg", []byte("jpeg bytes"), nil
}

// A refetch of another file of the same message that completes while one
// is downloading keeps its result.
func TestRefetchKeepsAConcurrentRefetchOfAnotherFile(t *testing.T) {
	store, svc, ctx := refetchFixture(t)
	src := func(ctx context.Context, s repo.Scope, channel, acc, media, sha string) (string, []byte, error) {
		if _, err := svc.Refetch(ctx, store, fetched, "file_b"); err != nil {
			t.Errorf("refetch of file_b: %v", err)
		}
		return fetched(ctx, s, channel, acc, media, sha)
	}
	if _, err := svc.Refetch(ctx, store, src, "file_a"); err != nil {
		t.Fatal(err)
	}
	if got := statuses(t, store); got["file_a"] != "stored" || got["file_b"] != "stored" {
		t.Fatalf("statuses %v", got)
	}
}

// A refetch that fails after another refetch of the same file stored it
// leaves the file stored, and answers it.
func TestRefetchFailingAfterAConcurrentSuccess(t *testing.T) {
	store, svc, ctx := refetchFixture(t)
	src := func(ctx context.Context, _ repo.Scope, _, _, _, _ string) (string, []byte, error) {
		if _, err := svc.Refetch(ctx, store, fetched, "file_a"); err != nil {
			t.Errorf("inner refetch: %v", err)
		}
		return "", nil, errors.New("the CDN link expired")
	}
	att, err := svc.Refetch(ctx, store, src, "file_a")
	if err != nil || att.Status != "stored" {
		t.Fatalf("%+v %v", att, err)
	}
	if got := statuses(t, store); got["file_a"] != "stored" {
		t.Fatalf("statuses %v", got)
	}
}
