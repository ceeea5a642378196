package inbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/inbox"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seed/seedtest"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

var epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// seeded is the inbox over the API tests' fixture, and Alice (an agent of
// ws_main) signed in to its test data.
func seeded(t *testing.T) (*inbox.Service, *repo.Store, context.Context) {
	t.Helper()
	now := func() time.Time { return epoch }
	store := seedtest.Store(t, now)
	svc := &inbox.Service{Store: store, Notes: store, Members: inbox.AgentMembers{Store: store}, Clock: now}
	return svc, store, as("ws_main", false, "usr_alice")
}

func as(workspace string, live bool, member string) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: workspace, Livemode: live, MemberID: member, Role: auth.RoleAgent})
}

func ids(t *testing.T, page *model.InboxPage, err error) map[string]bool {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, it := range page.Items {
		out[it.Conversation.ID] = it.Unread
	}
	return out
}

func code(err error) apierr.Code {
	e, _ := apierr.As(err)
	if e == nil {
		return ""
	}
	return e.Code
}

// TestViewsFollowTheConversation: each view lists what it says, Mine is
// the signed-in member's, and another workspace or mode lists none of it.
func TestViewsFollowTheConversation(t *testing.T) {
	svc, store, alice := seeded(t)
	ctx := context.Background()
	if _, err := store.DB.ExecContext(ctx, `UPDATE conversations SET mode = 'queued_for_human' WHERE id = 'conv_wa_1h'`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.ExecContext(ctx, `UPDATE conversations SET mode = 'human', assigned_agent_id = 'usr_alice' WHERE id = 'conv_wa_25h'`); err != nil {
		t.Fatal(err)
	}
	list := func(ctx context.Context, v model.InboxView) map[string]bool {
		page, err := svc.List(ctx, v, nil, nil, nil, nil, nil, nil)
		return ids(t, page, err)
	}
	for _, tt := range []struct {
		view      model.InboxView
		has, hasn string
	}{
		{model.InboxViewWaiting, "conv_wa_1h", "conv_wa_25h"},
		{model.InboxViewMine, "conv_wa_25h", "conv_wa_1h"},
		{model.InboxViewAi, "conv_wa_optout", "conv_wa_1h"},
		{model.InboxViewExternal, "", "conv_wa_optout"},
		{model.InboxViewClosed, "conv_web_closed", "conv_wa_1h"},
		{model.InboxViewAll, "conv_web_closed", "conv_live"},
	} {
		got := list(alice, tt.view)
		if _, ok := got[tt.has]; tt.has != "" && !ok {
			t.Errorf("%s = %v, want %s", tt.view, got, tt.has)
		}
		if _, ok := got[tt.hasn]; ok {
			t.Errorf("%s = %v lists %s", tt.view, got, tt.hasn)
		}
	}
	// usr_alice is no member of ws_other: the inbox refuses her there
	// before listing; the admin token of ws_other lists its own only.
	if _, err := svc.List(as("ws_other", false, "usr_alice"), model.InboxViewAll, nil, nil, nil, nil, nil, nil); code(err) != apierr.AgentNotFound {
		t.Errorf("ws_other as usr_alice: %v", err)
	}
	otherAdmin := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_other", Admin: true})
	if got := list(otherAdmin, model.InboxViewAll); len(got) != 1 || !hasKey(got, "conv_other") {
		t.Errorf("ws_other ALL = %v, want conv_other only", got)
	}
	if got := list(as("ws_main", true, "usr_alice"), model.InboxViewAll); len(got) != 1 || !hasKey(got, "conv_live") {
		t.Errorf("live ALL = %v, want conv_live only", got)
	}
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }

// TestUnreadFollowsReadMarks: a conversation the customer wrote in is
// unread until the member reads it, unread again after the customer's next
// message, and another member's marks are her own.
func TestUnreadFollowsReadMarks(t *testing.T) {
	svc, store, alice := seeded(t)
	if _, err := store.DB.Exec(`UPDATE agents SET active = true WHERE id = 'usr_bob'`); err != nil {
		t.Fatal(err)
	}
	bob := as("ws_main", false, "usr_bob")
	unread := func(ctx context.Context) bool {
		page, err := svc.List(ctx, model.InboxViewAi, nil, nil, nil, nil, nil, nil)
		return ids(t, page, err)["conv_wa_1h"]
	}
	counts := func(ctx context.Context) int {
		c, err := svc.Counts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c.Ai
	}
	before := counts(alice)
	if !unread(alice) || before == 0 {
		t.Fatalf("conv_wa_1h read before anyone read it (ai unread %d)", before)
	}
	item, err := svc.MarkRead(alice, "conv_wa_1h", nil)
	if err != nil || item.Unread {
		t.Fatalf("MarkRead = %+v, %v", item, err)
	}
	if unread(alice) || counts(alice) != before-1 {
		t.Errorf("after reading: unread %v, ai count %d (was %d)", unread(alice), counts(alice), before)
	}
	if !unread(bob) || counts(bob) != before {
		t.Error("Alice's read mark read it for Bob")
	}
	if _, err := store.DB.Exec(`UPDATE conversations SET last_inbound_at = last_inbound_at + interval '1 minute' WHERE id = 'conv_wa_1h'`); err != nil {
		t.Fatal(err)
	}
	if !unread(alice) {
		t.Error("a new customer message left it read")
	}
	if _, err := svc.MarkRead(alice, "conv_other", nil); code(err) != apierr.ConversationNotFound {
		t.Errorf("MarkRead(conv_other) = %v", err)
	}
}

// TestActingMember: a signed-in member acts as herself; the admin token
// names a member of the workspace; anyone else is refused.
func TestActingMember(t *testing.T) {
	svc, _, alice := seeded(t)
	admin := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", Admin: true})
	str := func(s string) *string { return &s }
	for _, tt := range []struct {
		name   string
		ctx    context.Context
		member *string
		want   string
		code   apierr.Code
	}{
		{"member", alice, nil, "usr_alice", ""},
		{"member repeating her id", alice, str("usr_alice"), "usr_alice", ""},
		{"member naming another", alice, str("usr_bob"), "", apierr.InvalidRequest},
		{"admin naming a member", admin, str("usr_alice"), "usr_alice", ""},
		{"admin naming nobody", admin, nil, "", apierr.InvalidRequest},
		{"admin naming an inactive agent", admin, str("usr_bob"), "", apierr.AgentNotFound},
		{"admin naming another workspace's", auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_other", Admin: true}),
			str("usr_alice"), "", apierr.AgentNotFound},
	} {
		_, m, err := svc.Acting(tt.ctx, tt.member)
		if code(err) != tt.code || (err == nil && m.ID != tt.want) {
			t.Errorf("%s: %+v, %v", tt.name, m, err)
		}
	}
}

// TestNotesArePrivate: a note is listed and streamed to the workspace's
// members of the mode, and written to no message or event.
func TestNotesArePrivate(t *testing.T) {
	svc, store, alice := seeded(t)
	ctx, cancel := context.WithCancel(alice)
	defer cancel()
	feed, err := svc.NotesFeed(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	otherCtx, otherCancel := context.WithCancel(as("ws_main", true, "usr_alice"))
	defer otherCancel()
	liveFeed, err := svc.NotesFeed(otherCtx, "")
	if err != nil {
		t.Fatal(err)
	}
	n, err := svc.AddNote(alice, "conv_wa_1h", "  refund quietly  ", nil)
	if err != nil || n.Text != "refund quietly" || n.Author.Name != "Alice" {
		t.Fatalf("AddNote = %+v, %v", n, err)
	}
	select {
	case got := <-feed:
		if got.ID != n.ID {
			t.Errorf("feed sent %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Error("the note never reached the feed")
	}
	select {
	case got := <-liveFeed:
		t.Errorf("the live mode's feed heard %+v", got)
	default:
	}
	page, err := svc.NoteList(alice, "conv_wa_1h", nil, nil)
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != n.ID {
		t.Errorf("NoteList = %+v, %v", page, err)
	}
	var leaks int
	if err := store.DB.Get(&leaks, `SELECT (SELECT count(*) FROM messages WHERE text LIKE '%refund quietly%')
		+ (SELECT count(*) FROM events WHERE envelope::text LIKE '%refund quietly%')`); err != nil {
		t.Fatal(err)
	}
	if leaks != 0 {
		t.Errorf("the note is in %d messages or events", leaks)
	}
	if _, err := svc.AddNote(as("ws_other", false, ""), "conv_wa_1h", "x", strPtr("usr_alice")); code(err) != apierr.AgentNotFound {
		t.Errorf("another workspace's note: %v", err)
	}
	if _, err := svc.NoteList(as("ws_other", false, ""), "conv_wa_1h", nil, nil); code(err) != apierr.ConversationNotFound {
		t.Errorf("another workspace listed the notes: %v", err)
	}
}

func strPtr(s string) *string { return &s }

// TestPresenceReachesOthers: a member's presence reaches the other
// members watching the conversation, never herself, another conversation,
// workspace or mode; leaving expires at once.
func TestPresenceReachesOthers(t *testing.T) {
	svc, store, alice := seeded(t)
	if _, err := store.DB.Exec(`UPDATE agents SET active = true WHERE id = 'usr_bob'`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := func(actor context.Context, conv string) <-chan *model.Presence {
		ch, err := svc.Presence(withCancel(ctx, actor), conv)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	bobSees := watch(as("ws_main", false, "usr_bob"), "conv_wa_1h")
	aliceSees := watch(alice, "conv_wa_1h")
	elsewhere := watch(as("ws_main", false, "usr_bob"), "conv_wa_25h")
	if _, err := svc.Presence(as("ws_main", true, "usr_bob"), "conv_wa_1h"); code(err) != apierr.ConversationNotFound {
		t.Errorf("the live mode watched a sandbox conversation: %v", err)
	}
	if ok, err := svc.SetPresence(alice, "conv_wa_1h", true, true, nil); !ok || err != nil {
		t.Fatalf("SetPresence = %v, %v", ok, err)
	}
	select {
	case p := <-bobSees:
		if p.Member.ID != "usr_alice" || !p.Typing || !p.Viewing || p.ExpiresAt.Time != epoch.Add(inbox.PresenceTTL) {
			t.Errorf("Bob saw %+v", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Bob never saw Alice")
	}
	if _, err := svc.SetPresence(alice, "conv_wa_1h", true, false, nil); err != nil {
		t.Fatal(err)
	}
	if p := <-bobSees; p.Viewing || p.Typing || p.ExpiresAt.Time != epoch {
		t.Errorf("leaving: %+v", p)
	}
	select {
	case p := <-aliceSees:
		t.Errorf("Alice saw herself: %+v", p)
	case p := <-elsewhere:
		t.Errorf("another conversation's watcher saw %+v", p)
	default:
	}
	if _, err := svc.SetPresence(alice, "conv_other", false, true, nil); !strings.Contains(string(code(err)), "not_found") {
		t.Errorf("presence on another workspace's conversation: %v", err)
	}
}

// withCancel is actor's caller on ctx's cancellation.
func withCancel(ctx, actor context.Context) context.Context {
	return auth.WithActor(ctx, auth.ActorFrom(actor))
}
