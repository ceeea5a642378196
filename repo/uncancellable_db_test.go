package repo_test

import (
	"context"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
)

// The reads of one conversation by its key, the API's and a send's
// optimistic one, run without the caller's cancellation (no goroutine
// waits to cancel them): a request cancelled as they start still reads
// the row. A locked read stays cancellable.
func TestReadsByKeyRunToTheirEnd(t *testing.T) {
	store := sendFixture(t)
	s := repo.Scope{WorkspaceID: "ws_1"}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if c, err := store.Conversation(ctx, s, "conv_nocontact"); err != nil || c.ID != "conv_nocontact" {
		t.Errorf("the read under a cancelled request: %v, %v", c, err)
	}
	err := store.InTxOptimistic(t.Context(), t.Name(), func(q repo.Queries) error {
		if !q.Optimistic() {
			t.Error("the run is not optimistic")
		}
		c, _, _, err := q.LockConversationForSend(ctx, s, "conv_nocontact")
		if err == nil && c.ID != "conv_nocontact" {
			t.Errorf("read %s", c.ID)
		}
		return err
	})
	if err != nil {
		t.Errorf("the optimistic read under a cancelled request: %v", err)
	}
	err = store.InTx(t.Context(), func(q repo.Queries) error {
		_, err := q.LockConversation(ctx, s, "conv_nocontact")
		return err
	})
	if err == nil {
		t.Error("a locked read ran under a cancelled request")
	}
}
