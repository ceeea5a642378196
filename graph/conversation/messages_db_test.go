package conversation_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// walk pages a conversation's messages to the end, 3 a page, and returns
// their ids in the order served and the number of pages.
func walk(t *testing.T, f *messagesFixture, id string, newestFirst bool) ([]string, int) {
	t.Helper()
	var ids []string
	var after *string
	limit := 3
	for pages := 1; ; pages++ {
		p, err := f.Messages(f.ctx, id, &limit, after, &newestFirst)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Items {
			ids = append(ids, m.ID)
		}
		if !p.HasMore {
			return ids, pages
		}
		after = p.NextCursor
	}
}

func TestMessagesNewestFirstPagesBack(t *testing.T) {
	f := messagesWithHistory(t)
	oldest, _ := walk(t, f, "conv_wa_1h", false)
	newest, pages := walk(t, f, "conv_wa_1h", true)
	if len(oldest) < 10 || pages < 4 {
		t.Fatalf("history of %d messages in %d pages, want at least 10 in 4", len(oldest), pages)
	}
	if slices.Reverse(oldest); !slices.Equal(newest, oldest) {
		t.Fatalf("newest first %v, want the oldest-first list reversed %v", newest, oldest)
	}
	if newest[0] != "msg_hist_09" {
		t.Fatalf("first served %s, want the newest msg_hist_09", newest[0])
	}
}

func TestMessagesNewestFirstRefusals(t *testing.T) {
	f := messagesWithHistory(t)
	limit, yes, no := 3, true, false
	first, err := f.Messages(f.ctx, "conv_wa_1h", &limit, nil, &no)
	if err != nil || first.NextCursor == nil {
		t.Fatalf("oldest first: %v %v", first, err)
	}
	if _, err := f.Messages(f.ctx, "conv_wa_1h", &limit, first.NextCursor, &yes); !isCode(err, apierr.InvalidCursor) {
		t.Errorf("an oldest-first cursor on the newest-first list: %v, want invalid_cursor", err)
	}
	for _, id := range []string{"conv_other", "conv_live"} {
		if _, err := f.Messages(f.ctx, id, &limit, nil, &yes); !isCode(err, apierr.ConversationNotFound) {
			t.Errorf("%s newest first: %v, want conversation_not_found", id, err)
		}
	}
}

func isCode(err error, c apierr.Code) bool {
	e, ok := apierr.As(err)
	return ok && e.Code == c
}

type messagesFixture struct {
	*conversation.Service
	ctx context.Context
}

// messagesWithHistory is the seeded service with ten more messages in
// conv_wa_1h, the newest of it, pairs of them sharing an instant (the id breaks the tie).
func messagesWithHistory(t *testing.T) *messagesFixture {
	t.Helper()
	svc, store, ctx := seeded(t)
	svc.Cursors = cursor.Signer{Secrets: []string{"test-secret"}}
	for i := range 10 {
		at := epoch.Add(time.Duration(i/2) * time.Second) // pairs share an instant
		m := &repo.Message{ID: fmt.Sprintf("msg_hist_%02d", i), WorkspaceID: "ws_main", ConversationID: "conv_wa_1h",
			Channel: "whatsapp", Direction: "inbound", SenderType: "contact", Type: "text", Status: "received", CreatedAt: at}
		if err := store.InsertMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	return &messagesFixture{svc, ctx}
}
