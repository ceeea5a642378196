package repo

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestNewIDSortsByCreation(t *testing.T) {
	at := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 1000; i++ {
		ids = append(ids, NewID("msg_", at.Add(time.Duration(i/100)*time.Millisecond)))
	}
	if !sort.StringsAreSorted(ids) {
		t.Error("ids made in order do not sort in order")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || !strings.HasPrefix(id, "msg_") || len(id) != len("msg_")+29 {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
	// An earlier clock (another process's, or a test's) still sorts after.
	if later := NewID("msg_", at.Add(-time.Hour)); later <= ids[len(ids)-1] {
		t.Errorf("%s sorts before %s", later, ids[len(ids)-1])
	}
}
