package seed_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// A provider id or an email address another workspace's account holds is
// refused at seed, at its path, naming that account and workspace (the
// operator runs seed); the second workspace is not written. Seeding the
// owner again changes nothing.
func TestSeedRefusesProviderIDsAndAddressesOfAnotherWorkspace(t *testing.T) {
	t.Parallel()
	const web = `"websites":[{"id":"web_%s"}]`
	wa := `"whatsapp":[{"id":"wa_%s","website_id":"web_%s","phone_number":"+15550001111","provider":{"phone_number_id":"%s","waba_id":"1029","access_token":"EAAG1"}}]`
	ig := `"instagram":[{"id":"ig_%s","website_id":"web_%s","username":"u%s","provider":{"login":"facebook","ig_user_id":"%s","page_id":"%s","access_token":"EAAG1"}}]`
	email := `"email":[{"id":"em_%s","website_id":"web_%s","address":"%s"}]`
	ws := func(id string, parts ...string) string {
		return `{"workspaces":[{"id":"ws_` + id + `",` + strings.Join(append([]string{strings.ReplaceAll(web, "%s", id)}, parts...), ",") + `}]}`
	}
	fill := func(format, id string, rest ...string) string {
		args := []any{id, id}
		if format == ig {
			args = append(args, id)
		}
		for _, r := range rest {
			args = append(args, r)
		}
		return sprintf(format, args...)
	}
	owner := ws("a", fill(wa, "a", "1065001"), fill(ig, "a", "1784101", "1090001"), sprintf(email, "a", "a", "Support@Shop.test"))
	for _, c := range []struct {
		name, doc, path, names string
	}{
		{"phone_number_id", ws("b", fill(wa, "b", "1065001")), "workspaces[0].whatsapp[0].provider", "1065001"},
		{"ig_user_id", ws("b", fill(ig, "b", "1784101", "1090002")), "workspaces[0].instagram[0].provider", "1784101"},
		{"page_id", ws("b", fill(ig, "b", "1784102", "1090001")), "workspaces[0].instagram[0].provider", "1090001"},
		{"address, another case", ws("b", sprintf(email, "b", "b", "support@shop.TEST")), "workspaces[0].email[0].address", "em_a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			store := repotest.NewStore(t)
			key, err := seal.New("", "test-secret-0123456789")
			if err != nil {
				t.Fatal(err)
			}
			r := &seed.Seeder{Store: store, Seal: key}
			for i, doc := range []string{owner, owner, c.doc} {
				fixture, err := seed.ParseFixture(strings.NewReader(doc))
				if err != nil {
					t.Fatal(err)
				}
				err = r.Seed(t.Context(), fixture)
				if i < 2 && err != nil {
					t.Fatalf("seeding the owner (run %d): %v", i+1, err)
				}
				if i == 2 {
					fe, ok := err.(*seed.FixtureError)
					if !ok || fe.Path != c.path || !strings.Contains(fe.Message, c.names) || !strings.Contains(fe.Message, "ws_a") {
						t.Fatalf("got %v, want an error at %s naming %s and ws_a", err, c.path, c.names)
					}
				}
			}
			var n int
			if err := store.DB.Get(&n, `SELECT count(*) FROM workspaces WHERE id = 'ws_b'`); err != nil || n != 0 {
				t.Errorf("ws_b was written though the fixture failed (%d, %v)", n, err)
			}
		})
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
