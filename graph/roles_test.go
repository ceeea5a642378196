package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/generated"
)

// TestEveryRootFieldHasRoles walks the schema: every root field (Query,
// Mutation, Subscription) is in graph/auth's fieldRoles, with known roles
// only, so a new field is never silently refused to every member or open
// to all.
func TestEveryRootFieldHasRoles(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	count := 0
	for _, root := range []string{"Query", "Mutation", "Subscription"} {
		def := schema.Types[root]
		if def == nil {
			t.Fatalf("the schema has no %s", root)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			count++
			roles, ok := auth.FieldRoles(f.Name)
			if !ok {
				t.Errorf("%s.%s is not in graph/auth/roles.go fieldRoles: say which roles may use it (app.md 1)", root, f.Name)
				continue
			}
			for _, r := range roles {
				if !slices.Contains(auth.Roles, r) {
					t.Errorf("%s.%s lists unknown role %q", root, f.Name, r)
				}
			}
		}
	}
	if count < 50 {
		t.Fatalf("walked only %d root fields", count)
	}
}
