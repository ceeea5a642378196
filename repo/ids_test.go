package repo

import (
	"math/big"
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

// Ids made in the same millisecond sort in order but do not count up by
// one: one id does not tell the next (a message's id is its bounce
// address, docs/email.md).
func TestNewIDIsNotTheLastPlusOne(t *testing.T) {
	at := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	prev, err := idEncoding.DecodeString(strings.TrimPrefix(NewID("msg_", at), "msg_"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		id, err := idEncoding.DecodeString(strings.TrimPrefix(NewID("msg_", at), "msg_"))
		if err != nil {
			t.Fatal(err)
		}
		var step big.Int
		step.Sub(new(big.Int).SetBytes(id), new(big.Int).SetBytes(prev))
		if step.Sign() <= 0 || step.BitLen() < 32 {
			t.Fatalf("id %d is the last plus %s", i, step.String())
		}
		prev = id
	}
}

// A step past the end of the low 64 bits carries: the id still sorts after.
func TestNewIDCarries(t *testing.T) {
	at := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	first := NewID("msg_", at)
	idMu.Lock()
	for i := 10; i < len(lastID); i++ {
		lastID[i] = 0xff
	}
	full := "msg_" + idEncoding.EncodeToString(lastID[:])
	idMu.Unlock()
	if next := NewID("msg_", at); next <= full || next <= first {
		t.Errorf("%s does not sort after %s", next, full)
	}
}
