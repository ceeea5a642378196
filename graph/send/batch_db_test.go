package send_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
)

// member is a signed-in member of a workspace with a role, in a mode.
func member(workspaceID, role string, live bool) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: workspaceID, MemberID: "mem_" + role,
		Role: role, Livemode: live})
}

// newBatch makes a batch of the caller and queues n of its sends to
// conv_wa_1h (in test mode), a minute after the batch before.
func (f *fixture) newBatch(t *testing.T, ctx context.Context, total, n int) string {
	t.Helper()
	f.now = f.now.Add(time.Minute)
	id, err := f.svc.NewBatch(ctx, total)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		in := model.SendMessageInput{ConversationID: ptr("conv_wa_1h"), Text: ptr("your order shipped")}
		if _, err := f.svc.Send(ctx, send.Request{Input: in, Async: true, BatchID: id}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// The portal's Batches: the developer roles list the batches of their
// workspace and mode, newest first, with their counts, in pages; an agent
// and an API key are refused.
func TestMessageBatchesList(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	f.svc.Cursors = cursor.Signer{Secrets: signing.Secrets{"batch-cursors"}}
	older := f.newBatch(t, testKey, 2, 2)
	newer := f.newBatch(t, testKey, 3, 1)
	live := f.newBatch(t, liveKey, 1, 0)
	other := f.newBatch(t, auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_other", Scopes: []string{"*"},
		Version: auth.ServedVersion}), 1, 0)

	for _, ctx := range []context.Context{member("ws_main", auth.RoleAgent, false), testKey} {
		_, err := f.svc.MessageBatches(ctx, nil, nil)
		apierrtest.Want(t, err, apierr.Forbidden, "messageBatches")
	}
	for _, role := range []string{auth.RoleOwner, auth.RoleAdmin, auth.RoleDeveloper} {
		if _, err := f.svc.MessageBatches(member("ws_main", role, false), nil, nil); err != nil {
			t.Errorf("%s: %v", role, err)
		}
	}

	dev := member("ws_main", auth.RoleDeveloper, false)
	one := 1
	first, err := f.svc.MessageBatches(dev, &one, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Items) != 1 || first.Items[0].ID != newer || !first.HasMore || first.NextCursor == nil {
		t.Fatalf("first page %+v, want %s and a next cursor", first, newer)
	}
	b := first.Items[0]
	if b.Total != 3 || b.Counts.Queued != 1 || b.Done || b.Object != "message_batch" {
		t.Errorf("the newer batch %+v %+v, want 3 sends, 1 queued, not done", b, b.Counts)
	}
	second, err := f.svc.MessageBatches(dev, &one, first.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Items) != 1 || second.Items[0].ID != older || second.HasMore || second.Items[0].Counts.Queued != 2 {
		t.Fatalf("second page %+v, want %s alone with 2 queued", second, older)
	}
	for _, ctx := range []context.Context{member("ws_main", auth.RoleDeveloper, true), member("ws_other", auth.RoleOwner, false)} {
		page, err := f.svc.MessageBatches(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := live
		if auth.ActorFrom(ctx).WorkspaceID == "ws_other" {
			want = other
		}
		if len(page.Items) != 1 || page.Items[0].ID != want || !page.Items[0].Done {
			t.Errorf("%+v lists %+v, want %s alone, done (no message)", auth.ActorFrom(ctx), page.Items, want)
		}
	}
	// A page is 1 to 100 batches.
	many := 101
	_, err = f.svc.MessageBatches(dev, &many, nil)
	apierrtest.Want(t, err, apierr.InvalidLimit, "")
}
