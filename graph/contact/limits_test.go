package contact

import (
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"", true},
		{"Ann Lee", true},
		{strings.Repeat("é", MaxName), true},
		{strings.Repeat("a", MaxName+1), false},
	} {
		if err := CheckName(&c.name); (err == nil) != c.ok {
			t.Errorf("CheckName(%d characters) = %v, want ok %v", len([]rune(c.name)), err, c.ok)
		}
	}
	if CheckName(nil) != nil {
		t.Error("CheckName(nil) refused")
	}
}
