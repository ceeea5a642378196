package seed_test

import (
	"os"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// dump renders every seeded table so two loads can be compared.
func dump(t *testing.T, store *repo.Store) string {
	t.Helper()
	var out strings.Builder
	for _, table := range []string{"workspaces", "websites", "channel_accounts", "email_domains", "agents",
		"templates", "api_keys", "contacts", "conversations", "messages", "events"} {
		var rows []string
		if err := store.DB.Select(&rows, `SELECT t::text FROM `+table+` t ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		out.WriteString(table + "\n" + strings.Join(rows, "\n") + "\n")
	}
	return out.String()
}

func loadFixture(t *testing.T) *seed.Fixture {
	t.Helper()
	f, err := os.Open(resttest.FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fixture, err := seed.ParseFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	return fixture
}

func TestSeedIsIdempotent(t *testing.T) {
	t.Parallel()
	clock := resttest.NewClock(resttest.Epoch)
	store := repotest.NewStore(t)
	r := &seed.Seeder{Store: store, Clock: clock.Now}
	fixture := loadFixture(t)
	if err := r.Seed(t.Context(), fixture); err != nil {
		t.Fatal(err)
	}
	first := dump(t, store)
	clock.Advance(3600e9) // a later run must not rewrite creation times
	if err := r.Seed(t.Context(), fixture); err != nil {
		t.Fatal(err)
	}
	if second := dump(t, store); second != first {
		t.Errorf("the second seed changed the database")
	}
	if !strings.Contains(first, "conv_wa_25h") || strings.Contains(first, "svc_test_testall") {
		t.Error("dump lacks fixture rows, or a key secret was stored in clear")
	}
}

func TestSeedRefusesBadFixturesWithThePath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json, path string
	}{
		{"unknown field", `{"workspaces":[{"id":"ws_a","colour":"red"}]}`, "$"},
		{"wrong type", `{"workspaces":[{"id":"ws_a","messages_limit":"lots"}]}`, "workspaces.messages_limit"},
		{"bad plan", `{"workspaces":[{"id":"ws_a","plan":"gold"}]}`, "workspaces[0].plan"},
		{"bad secret", `{"workspaces":[{"id":"ws_a","keys":[{"id":"key_a","secret":"svc_test_short"}]}]}`, "workspaces[0].keys[0].secret"},
		{"bad scope", `{"workspaces":[{"id":"ws_a","keys":[{"id":"key_a","secret":"svc_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","scopes":["everything"]}]}]}`, "workspaces[0].keys[0].scopes[0]"},
		{"unknown website", `{"workspaces":[{"id":"ws_a","whatsapp":[{"id":"wa_a","website_id":"web_x","phone_number":"+15550001111"}]}]}`, "workspaces[0].whatsapp[0].website_id"},
		{"phone without country code", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"whatsapp":[{"id":"wa_a","website_id":"web_a","phone_number":"5550001111"}]}]}`, "workspaces[0].whatsapp[0].phone_number"},
		{"contact phone", `{"workspaces":[{"id":"ws_a","contacts":[{"id":"ct_a","phone":"12"}]}]}`, "workspaces[0].contacts[0].phone"},
		{"conversation account", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"conversations":[{"id":"conv_a","channel":"whatsapp","account_id":"web_a"}]}]}`, "workspaces[0].conversations[0].account_id"},
		{"message direction", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"conversations":[{"id":"conv_a","channel":"website","account_id":"web_a","messages":[{"id":"msg_a","direction":"sideways"}]}]}]}`, "workspaces[0].conversations[0].messages[0].direction"},
		{"second workspace", `{"workspaces":[{"id":"ws_a"},{"id":"nope"}]}`, "workspaces[1].id"},
		{"template {{0}}", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"whatsapp":[{"id":"wa_a","website_id":"web_a","phone_number":"+15550001111"}],"templates":[{"whatsapp_account_id":"wa_a","name":"t","language":"en","category":"UTILITY","status":"APPROVED","body":"Hi {{0}}"}]}]}`, "workspaces[0].templates[0].body"},
		{"template gap", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"whatsapp":[{"id":"wa_a","website_id":"web_a","phone_number":"+15550001111"}],"templates":[{"whatsapp_account_id":"wa_a","name":"t","language":"en","category":"UTILITY","status":"APPROVED","body":"Hi {{1}} and {{3}}"}]}]}`, "workspaces[0].templates[0].body"},
		{"return path", `{"workspaces":[{"id":"ws_a","email_domains":[{"domain":"acme.test","return_path_domain":"bounces@acme.test"}]}]}`, "workspaces[0].email_domains[0].return_path_domain"},
		{"template huge", `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_a"}],"whatsapp":[{"id":"wa_a","website_id":"web_a","phone_number":"+15550001111"}],"templates":[{"whatsapp_account_id":"wa_a","name":"t","language":"en","category":"UTILITY","status":"APPROVED","body":"Hi {{99999999999999999999}}"}]}]}`, "workspaces[0].templates[0].body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			store := repotest.NewStore(t)
			r := &seed.Seeder{Store: store}
			fixture, err := seed.ParseFixture(strings.NewReader(c.json))
			if err == nil {
				err = r.Seed(t.Context(), fixture)
			}
			fe, ok := err.(*seed.FixtureError)
			if !ok || fe.Path != c.path {
				t.Fatalf("got %v, want an error at %s", err, c.path)
			}
			var n int
			if err := store.DB.Get(&n, `SELECT count(*) FROM workspaces`); err != nil || n != 0 {
				t.Errorf("a refused fixture wrote %d workspaces (%v)", n, err)
			}
		})
	}
}

func TestSeedRefusesIDsOfAnotherWorkspace(t *testing.T) {
	t.Parallel()
	store := repotest.NewStore(t)
	r := &seed.Seeder{Store: store}
	first := `{"workspaces":[{"id":"ws_a","websites":[{"id":"web_shared"}]}]}`
	second := `{"workspaces":[{"id":"ws_b","name":"B"},{"id":"ws_c","websites":[{"id":"web_shared"}]}]}`
	for i, doc := range []string{first, second} {
		fixture, err := seed.ParseFixture(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Seed(t.Context(), fixture)
		if i == 0 && err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			fe, ok := err.(*seed.FixtureError)
			if !ok || fe.Path != "workspaces[1].websites[0].id" {
				t.Fatalf("got %v", err)
			}
		}
	}
	var n int
	if err := store.DB.Get(&n, `SELECT count(*) FROM workspaces WHERE id = 'ws_b'`); err != nil || n != 0 {
		t.Errorf("ws_b was written though the fixture failed (%d, %v)", n, err)
	}
}

func TestSeedAgainKeepsCountersTrueToStoredMessages(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("POST", "/v1/messages", "test_all", map[string]any{"conversation_id": "conv_wa_1h", "text": "hello"}), 201, "")
	if err := (&seed.Seeder{Store: api.Resolver.Store, Clock: api.Resolver.Clock}).Seed(t.Context(), loadFixture(t)); err != nil {
		t.Fatal(err)
	}
	conv := api.Want(api.Do("GET", "/v1/conversations/conv_wa_1h", "test_all", nil), 200, "").Data()
	if conv["message_count"] != float64(3) || conv["last_message_at"] != "2026-10-15T12:00:00.000Z" {
		t.Errorf("after seeding again: message_count %v, last_message_at %v", conv["message_count"], conv["last_message_at"])
	}
}
