package rest

import "testing"

func TestNulAtNamesTheField(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{map[string]any{"name": "Ann"}, ""},
		{map[string]any{"name": "A\x00"}, "name"},
		{map[string]any{"tags": []any{"a", "b\x00"}}, "tags[1]"},
		{map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "\x00"}}}}, "a.b[0].c"},
		{map[string]any{"z": "\x00", "a": "\x00"}, "a"},
		{map[string]any{"k\x00": 1}, "the body (a key)"},
		{map[string]any{"n": 1.0, "b": true, "x": nil}, ""},
	}
	for _, tt := range tests {
		if got := nulAt(tt.v, ""); got != tt.want {
			t.Errorf("nulAt(%q) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if impossibleID("conv_1") != "conv_1" || impossibleID("c\x00\xff") != "c\uFFFD\uFFFD" {
		t.Errorf("impossibleID: %q", impossibleID("c\x00\xff"))
	}
}
