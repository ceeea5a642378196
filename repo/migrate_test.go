package repo

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestMigrationList(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	for _, tc := range []struct {
		name    string
		files   []string
		want    string // the names in order, or the error's text
		wantErr bool
	}{
		{"numeric order", []string{"0010_b.sql", "0002_a.sql", "0001_core.sql"}, "0001_core.sql 0002_a.sql 0010_b.sql", false},
		{"one number twice", []string{"0013_instagram.sql", "0014_a.sql", "0014_b.sql"}, "share version 14", true},
		{"no number", []string{"0001_core.sql", "extra.sql"}, "must start with a number", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tc.files {
				fsys["migrations/"+f] = file
			}
			list, err := migrationList(fsys)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range list {
				names = append(names, m.name)
			}
			if got := strings.Join(names, " "); got != tc.want {
				t.Errorf("order %q, want %q", got, tc.want)
			}
		})
	}
	// The migrations this binary ships pass the same check.
	if _, err := migrationList(migrations); err != nil {
		t.Error(err)
	}
}
