package metahook

import "testing"

// Statuses move forward only: sent → delivered → read, failed only from
// sent or delivered.
func TestForward(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"sent", "delivered", true}, {"sent", "read", true}, {"delivered", "read", true},
		{"sent", "failed", true}, {"delivered", "failed", true}, {"sending", "failed", true},
		{"read", "failed", false}, {"failed", "read", false}, {"failed", "delivered", false}, {"failed", "failed", false},
		{"read", "delivered", false}, {"delivered", "sent", false}, {"read", "read", false}, {"delivered", "delivered", false},
	} {
		if got := forward(c.from, c.to); got != c.want {
			t.Errorf("%s → %s: %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
