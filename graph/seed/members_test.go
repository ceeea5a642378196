package seed_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// A fixture's members are written with their roles beside its agents
// (role agent); a bad role, an id or address used twice (in any case), a
// member without an address, or an address another workspace's member
// has, is refused at its path.
func TestSeedMembers(t *testing.T) {
	t.Parallel()
	store := repotest.NewStore(t)
	r := &seed.Seeder{Store: store}
	run := func(doc string) error {
		f, err := seed.ParseFixture(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		return r.Seed(t.Context(), f)
	}
	good := `{"workspaces":[{"id":"ws_a","agents":[{"id":"usr_ag","name":"Ag","email":"ag@a.test"}],
		"members":[{"id":"usr_own","name":"Own","email":"Own@A.test","role":"owner"},{"id":"usr_dev","name":"Dev","email":"dev@a.test","role":"developer","active":false}]}]}`
	if err := run(good); err != nil {
		t.Fatal(err)
	}
	if err := run(good); err != nil {
		t.Fatalf("seeding again: %v", err)
	}
	members, err := store.Members(t.Context(), "ws_a")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range members {
		got = append(got, m.ID+":"+m.Role+":"+m.Email+":"+map[bool]string{true: "on", false: "off"}[m.Active])
	}
	if strings.Join(got, " ") != "usr_ag:agent:ag@a.test:on usr_dev:developer:dev@a.test:off usr_own:owner:own@a.test:on" {
		t.Errorf("members = %v", got)
	}
	for _, c := range []struct{ name, members, path, says string }{
		{"bad role", `[{"id":"usr_x","name":"X","email":"x@b.test","role":"boss"}]`, "workspaces[0].members[0].role", "owner, admin"},
		{"no email", `[{"id":"usr_x","name":"X","role":"admin"}]`, "workspaces[0].members[0].email", "required"},
		{"id twice", `[{"id":"usr_x","name":"X","email":"x@b.test","role":"admin"},{"id":"usr_x","name":"Y","email":"y@b.test","role":"admin"}]`,
			"workspaces[0].members[1].id", "used twice"},
		{"email twice", `[{"id":"usr_x","name":"X","email":"x@b.test","role":"admin"},{"id":"usr_y","name":"Y","email":"X@B.test","role":"admin"}]`,
			"workspaces[0].members[1].email", "used twice"},
		{"another workspace's address", `[{"id":"usr_x","name":"X","email":"OWN@a.test","role":"admin"}]`,
			"workspaces[0].members[0].email", "another member"},
	} {
		err := run(`{"workspaces":[{"id":"ws_b","members":` + c.members + `}]}`)
		fe, ok := err.(*seed.FixtureError)
		if !ok || fe.Path != c.path || !strings.Contains(fe.Message, c.says) {
			t.Errorf("%s: %v, want an error at %s saying %q", c.name, err, c.path, c.says)
		}
	}
}
