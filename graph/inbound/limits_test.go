package inbound

import "testing"

func TestMaxText(t *testing.T) {
	for ch, want := range map[string]int{"website": 64 << 10, "whatsapp": 64 << 10, "instagram": 64 << 10, "email": 25 << 20} {
		if got := MaxText(ch); got != want {
			t.Errorf("MaxText(%s) = %d, want %d", ch, got, want)
		}
	}
}
