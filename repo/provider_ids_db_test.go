package repo_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// accounts stores an account of a channel in each of ws_a and ws_b (with
// their websites).
func accounts(t *testing.T, store *repo.Store, channel, id string, address ...string) {
	t.Helper()
	for i, ws := range []string{"ws_a", "ws_b"} {
		conv := repotest.Conversation(ws, "conv_"+ws, "website", true)
		conv.WebsiteID, conv.AccountID = "web_"+ws, "web_"+ws
		repotest.Thread(t, store, conv)
		acc := &repo.Account{WorkspaceID: ws, ID: id, Channel: channel, WebsiteID: "web_" + ws, Status: "connected"}
		if i < len(address) {
			acc.Address = address[i]
		}
		if err := store.UpsertAccount(t.Context(), acc); err != nil {
			t.Fatalf("account of %s: %v", ws, err)
		}
	}
}

func provider(ws, account, channel, key, page string) *repo.AccountProvider {
	return &repo.AccountProvider{WorkspaceID: ws, AccountID: account, Channel: channel, ProviderKey: key, PageID: page,
		Sealed: "x", UpdatedAt: time.Unix(0, 0)}
}

// A provider id or Page id of one account is refused for any other, named
// with its owner; the database itself refuses what gets past the check.
// The owner may store its credentials again.
func TestProviderIDsBelongToOneAccount(t *testing.T) {
	store := repotest.NewStore(t)
	accounts(t, store, "instagram", "ig_1")
	if err := store.UpsertAccountProvider(t.Context(), provider("ws_a", "ig_1", "instagram", "1784101", "1090001")); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertAccountProvider(t.Context(), provider("ws_a", "ig_1", "instagram", "1784101", "1090001")); err != nil {
		t.Fatalf("the owner again: %v", err)
	}
	for _, p := range []*repo.AccountProvider{
		provider("ws_b", "ig_1", "instagram", "1784101", ""),
		provider("ws_b", "ig_1", "instagram", "1784102", "1090001"),
		provider("ws_b", "ig_1", "instagram", "1090001", ""), // keyed by the Page (no ig_user_id known)
	} {
		var taken *repo.ProviderIDTaken
		err := store.UpsertAccountProvider(t.Context(), p)
		if !errors.As(err, &taken) || taken.Workspace != "ws_a" || taken.AccountID != "ig_1" {
			t.Errorf("%s/%s: %v, want taken by ws_a/ig_1", p.ProviderKey, p.PageID, err)
		}
	}
	for _, q := range []string{
		`INSERT INTO account_providers (workspace_id, account_id, channel, provider_key, sealed, updated_at, page_id)
			VALUES ('ws_b', 'ig_1', 'instagram', '1784101', 'x', now(), '')`,
		`INSERT INTO account_providers (workspace_id, account_id, channel, provider_key, sealed, updated_at, page_id)
			VALUES ('ws_b', 'ig_1', 'instagram', '1784109', 'x', now(), '1090001')`,
	} {
		var pqErr *pq.Error
		if _, err := store.DB.Exec(q); !errors.As(err, &pqErr) || pqErr.Code != "23505" {
			t.Errorf("the database took a second account's id: %v", err)
		}
	}
}

// One email address (in any case) is one account's.
func TestEmailAddressBelongsToOneAccount(t *testing.T) {
	store := repotest.NewStore(t)
	accounts(t, store, "email", "em_1", "support@shop.test")
	var conflict *repo.ConflictError
	err := store.UpsertAccount(t.Context(), &repo.Account{WorkspaceID: "ws_b", ID: "em_1", Channel: "email",
		WebsiteID: "web_ws_b", Address: "Support@Shop.TEST", Status: "connected"})
	if !errors.As(err, &conflict) || conflict.Constraint != "channel_accounts_email_address_unique" {
		t.Errorf("a second account with the address: %v, want a conflict", err)
	}
}

// A database that holds one id on two accounts is not migrated: the
// migration fails naming both, and tells what to do.
func TestMigrationRefusesExistingDuplicates(t *testing.T) {
	store := repotest.NewStore(t)
	accounts(t, store, "email", "em_1")
	if _, err := store.DB.Exec(`DELETE FROM schema_migrations WHERE version = 33;
		DROP INDEX account_providers_key_unique; DROP INDEX account_providers_page_unique;
		DROP INDEX channel_accounts_email_address_unique; ALTER TABLE account_providers DROP COLUMN page_id;
		CREATE INDEX account_providers_key ON account_providers (channel, provider_key);
		DROP TRIGGER provider_messages_workspace ON provider_messages; DROP FUNCTION provider_messages_workspace();
		ALTER TABLE provider_messages DROP CONSTRAINT provider_messages_pkey; ALTER TABLE provider_messages DROP COLUMN workspace_id;
		ALTER TABLE provider_messages ADD PRIMARY KEY (channel, provider_id);
		UPDATE channel_accounts SET address = 'Support@shop.test' WHERE workspace_id = 'ws_a';
		UPDATE channel_accounts SET address = 'support@shop.test' WHERE workspace_id = 'ws_b';`); err != nil {
		t.Fatal(err)
	}
	err := store.Migrate(t.Context())
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || !strings.Contains(pqErr.Message, "support@shop.test (ws_a/em_1, ws_b/em_1)") ||
		!strings.Contains(pqErr.Hint, "run msgsvc migrate again") {
		t.Fatalf("migrating with a shared address: %v, want it refused naming both accounts", err)
	}
	if _, err := store.DB.Exec(`UPDATE channel_accounts SET address = 'sales@shop.test' WHERE workspace_id = 'ws_b'`); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(t.Context()); err != nil {
		t.Fatalf("after the operator's fix: %v", err)
	}
}

// A provider id is deduplicated per workspace: the second insert in one
// workspace reports false, another workspace's message takes the same id,
// and an insert that names no workspace (an older binary's) gets its
// message's.
func TestProviderMessageIDsAreDeduplicatedPerWorkspace(t *testing.T) {
	store := repotest.NewStore(t)
	for _, ws := range []string{"ws_a", "ws_b"} {
		conv := repotest.Conversation(ws, "conv_"+ws, "instagram", true)
		conv.WebsiteID = "web_" + ws
		repotest.Thread(t, store, conv, repotest.Message(conv, "msg_"+ws, "inbound", "received", ""),
			repotest.Message(conv, "msg_"+ws+"_2", "inbound", "received", ""))
	}
	for _, c := range []struct {
		message string
		fresh   bool
	}{{"msg_ws_a", true}, {"msg_ws_a_2", false}, {"msg_ws_b", true}, {"msg_ws_b_2", false}} {
		fresh, err := store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "instagram", ProviderID: "mid.1",
			MessageID: c.message, Status: "received"})
		if err != nil || fresh != c.fresh {
			t.Errorf("mid.1 for %s: fresh %v (%v), want %v", c.message, fresh, err, c.fresh)
		}
	}
	for _, ws := range []string{"ws_a", "ws_b"} {
		part, err := store.ProviderMessageOf(t.Context(), ws, "instagram", "mid.1")
		if err != nil || part.MessageID != "msg_"+ws {
			t.Errorf("mid.1 in %s: %+v %v", ws, part, err)
		}
	}
}
