package rest

import "testing"

func TestSecondsPlural(t *testing.T) {
	for n, want := range map[int]string{1: "1 second", 2: "2 seconds", 0: "0 seconds", 60: "60 seconds"} {
		if got := seconds(n); got != want {
			t.Errorf("seconds(%d) = %q, want %q", n, got, want)
		}
	}
}
