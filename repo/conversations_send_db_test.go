package repo_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// sendFixture stores a workspace with conversations whose account and
// contact are there or not, and another workspace; it returns the store.
// wa_1 belongs to web_2 while its conversations are on web_1, so a key
// restricted to web_1 sees them but not the account's website.
func sendFixture(t *testing.T) *repo.Store {
	t.Helper()
	store := repotest.NewStore(t)
	// The optimistic runs of the tests are keyed by the test's name, whose
	// contention slot another test's key may share: it starts clear.
	repo.ForgetContention(t.Name())
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	str := func(s string) *string { return &s }
	conv := func(id, channel, account string, live bool, contact *string) *repo.Conversation {
		return &repo.Conversation{ID: id, WorkspaceID: "ws_1", Livemode: live, Channel: channel, AccountID: account,
			WebsiteID: "web_1", ContactID: contact, Status: "open", Mode: "human", Subject: str("about " + id),
			Tags: pq.StringArray{"vip"}, IntegrationReplies: true, MessageCount: 1, CreatedAt: at, UpdatedAt: at,
			LastMessageAt: at, LastInboundAt: &at}
	}
	err := store.InTx(t.Context(), func(q repo.Queries) error {
		for _, ws := range []string{"ws_1", "ws_2"} {
			if err := q.UpsertWorkspace(t.Context(), &repo.Workspace{ID: ws, Name: ws, Plan: "pro", Status: "active",
				MessagesLimit: 100, RatePerSecond: 1, RatePerMinute: 1}); err != nil {
				return err
			}
		}
		for _, w := range []string{"web_1", "web_2"} {
			if err := q.UpsertWebsite(t.Context(), &repo.Website{ID: w, WorkspaceID: "ws_1", Name: w, Domains: pq.StringArray{w + ".example"}}); err != nil {
				return err
			}
		}
		if err := q.UpsertAccount(t.Context(), &repo.Account{WorkspaceID: "ws_1", ID: "wa_1", Channel: "whatsapp",
			WebsiteID: "web_2", Name: "Support", PhoneNumber: "+15550001", Status: "connected",
			MarketingMessages: "on", Processing: true}); err != nil {
			return err
		}
		for _, c := range []*repo.Contact{
			{ID: "ct_full", WorkspaceID: "ws_1", Name: "Ada", Email: str("ada@example.com"), Phone: str("+15550002"),
				InstagramUserID: str("ig_ada"), ExternalID: str("ext_ada"), OptOutWhatsapp: true, OptOutEmail: true,
				OptOutInstagram: true, EmailSuppressed: repo.JSONB(`{"reason": "bounce"}`), FirstSeenChannel: str("whatsapp"),
				Source: "api", CreatedAt: at, UpdatedAt: at, LastSeenAt: &at},
			{ID: "ct_live", WorkspaceID: "ws_1", Livemode: true, Name: "Live", Source: "api", CreatedAt: at, UpdatedAt: at},
		} {
			if err := q.UpsertContact(t.Context(), c); err != nil {
				return err
			}
		}
		for _, c := range []*repo.Conversation{
			conv("conv_wa", "whatsapp", "wa_1", false, str("ct_full")),
			conv("conv_web", "website", "web_1", false, str("ct_full")),
			conv("conv_nocontact", "whatsapp", "wa_1", false, nil),
			conv("conv_livecontact", "whatsapp", "wa_1", false, str("ct_live")),
			conv("conv_noaccount", "whatsapp", "wa_gone", false, str("ct_full")),
			conv("conv_live", "whatsapp", "wa_1", true, str("ct_live")),
		} {
			if err := q.UpsertConversation(t.Context(), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A contact_id whose contact row is missing: no constraint allows one
	// today, but the send tolerates it, and so must the statement.
	if _, err := store.DB.Exec(`ALTER TABLE conversations DROP CONSTRAINT conversations_contact_id_fkey`); err != nil {
		t.Fatal(err)
	}
	c := conv("conv_ghost", "whatsapp", "wa_1", false, str("ct_gone"))
	if err := store.UpsertConversation(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	return store
}

// sendTargetBefore is what a send read with three statements before
// LockConversationForSend: the locked conversation, its account (an error
// if missing) and its contact (nil if missing).
func sendTargetBefore(ctx context.Context, q repo.Queries, s repo.Scope, id string) (*repo.Conversation, *repo.Account, *repo.Contact, error) {
	conv, err := q.LockConversation(ctx, s, id)
	if err != nil {
		return nil, nil, nil, err
	}
	acc, err := q.Account(ctx, s.WorkspaceID, conv.Channel, conv.AccountID)
	if errors.Is(err, repo.ErrNotFound) {
		acc, err = nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var contact *repo.Contact
	if conv.ContactID != nil {
		if contact, err = q.Contact(ctx, s, *conv.ContactID); err != nil && !errors.Is(err, repo.ErrNotFound) {
			return nil, nil, nil, err
		}
	}
	return conv, acc, contact, nil
}

// TestLockConversationForSend: the one statement answers what the three
// did, for every scope rule and for an account or contact that is missing.
func TestLockConversationForSend(t *testing.T) {
	store := sendFixture(t)
	sandbox := repo.Scope{WorkspaceID: "ws_1"}
	restricted := func(channels, websites []string) repo.Scope {
		return repo.Scope{WorkspaceID: "ws_1", Channels: channels, WebsiteIDs: websites}
	}
	for _, tc := range []struct {
		name                string
		scope               repo.Scope
		id                  string
		found, acc, contact bool
	}{
		{"account and contact", sandbox, "conv_wa", true, true, true},
		{"website chat: the website is the account", sandbox, "conv_web", true, true, true},
		{"no contact (NULL contact_id)", sandbox, "conv_nocontact", true, true, false},
		{"the contact row is missing", sandbox, "conv_ghost", true, true, false},
		{"the contact is of the other mode", sandbox, "conv_livecontact", true, true, false},
		{"the account is gone", sandbox, "conv_noaccount", true, false, true},
		{"no such conversation", sandbox, "conv_none", false, false, false},
		{"another workspace", repo.Scope{WorkspaceID: "ws_2"}, "conv_wa", false, false, false},
		{"the other mode", sandbox, "conv_live", false, false, false},
		{"live key, live conversation", repo.Scope{WorkspaceID: "ws_1", Livemode: true}, "conv_live", true, true, true},
		{"key on the channel", restricted([]string{"whatsapp"}, nil), "conv_wa", true, true, true},
		{"key on another channel", restricted([]string{"email"}, nil), "conv_wa", false, false, false},
		// The account is read whatever the key's restrictions, as Account
		// reads it: wa_1 is web_2's.
		{"key on the website", restricted(nil, []string{"web_1"}), "conv_wa", true, true, true},
		{"key on another website", restricted(nil, []string{"web_2"}), "conv_wa", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inTx(t, store, func(q repo.Queries) error {
				conv, acc, contact, err := q.LockConversationForSend(t.Context(), tc.scope, tc.id)
				if err != nil || !tc.found {
					return wantFound(t, err, tc.found)
				}
				wantConv, wantAcc, wantContact, err := sendTargetBefore(t.Context(), q, tc.scope, tc.id)
				if err != nil {
					return err
				}
				if (acc != nil) != tc.acc || (contact != nil) != tc.contact {
					t.Errorf("account %v, contact %v; want present %v and %v", acc, contact, tc.acc, tc.contact)
				}
				sameRow(t, "conversation", conv, wantConv)
				sameRow(t, "account", acc, wantAcc)
				sameRow(t, "contact", contact, wantContact)
				return nil
			})
		})
	}
}

// inTx runs fn in a transaction and fails the test on its error.
func inTx(t *testing.T, store *repo.Store, fn func(q repo.Queries) error) {
	t.Helper()
	if err := store.InTx(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

// wantFound checks the error of a lookup that failed or should find
// nothing, which is ErrNotFound; it returns any other error.
func wantFound(t *testing.T, err error, found bool) error {
	t.Helper()
	switch {
	case found || (err != nil && !errors.Is(err, repo.ErrNotFound)):
		return err
	case err == nil:
		t.Error("found a row, want ErrNotFound")
	}
	return nil
}

// sameRow fails the test when a row read by the one statement differs from
// the row read by the statements it replaces.
func sameRow(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s\n%+v\nwant\n%+v", what, got, want)
	}
}

// TestLockConversationForSendLocksOnlyTheConversation: the conversation
// stays locked until the send's transaction ends; its contact and account
// are read, not locked.
func TestLockConversationForSendLocksOnlyTheConversation(t *testing.T) {
	store := sendFixture(t)
	inTx(t, store, func(q repo.Queries) error {
		if _, _, _, err := q.LockConversationForSend(t.Context(), repo.Scope{WorkspaceID: "ws_1"}, "conv_wa"); err != nil {
			return err
		}
		for query, locked := range map[string]bool{
			`SELECT 1 FROM conversations WHERE id = 'conv_wa' FOR UPDATE NOWAIT`:                           true,
			`SELECT 1 FROM contacts WHERE id = 'ct_full' FOR UPDATE NOWAIT`:                                false,
			`SELECT 1 FROM channel_accounts WHERE workspace_id = 'ws_1' AND id = 'wa_1' FOR UPDATE NOWAIT`: false,
			`SELECT 1 FROM websites WHERE id = 'web_1' FOR UPDATE NOWAIT`:                                  false,
		} {
			if got := lockedElsewhere(t, store, query); got != locked {
				t.Errorf("%s: locked %v, want %v", query, got, locked)
			}
		}
		return nil
	})
}

// lockedElsewhere says whether another transaction holds the row a FOR
// UPDATE NOWAIT query asks for.
func lockedElsewhere(t *testing.T, store *repo.Store, query string) bool {
	t.Helper()
	return repotest.Locked(t, store, query)
}
