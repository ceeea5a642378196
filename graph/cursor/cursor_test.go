package cursor

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

func TestPage(t *testing.T) {
	s := Signer{Secrets: signing.Secrets{"secret-one"}}
	pos := repo.Position{At: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC), ID: "conv_1"}
	good := s.Encode("conversations", pos)
	tampered := good[:len(good)-2] + "xx"
	// After a rotation the new secret signs and the old one still verifies.
	rotated := Signer{Secrets: signing.Secrets{"secret-two", "secret-one"}}
	if rotated.Encode("conversations", pos) != (Signer{Secrets: signing.Secrets{"secret-two"}}).Encode("conversations", pos) {
		t.Fatal("a rotated signer does not sign with its first secret")
	}
	limit := func(n int) *int { return &n }
	str := func(v string) *string { return &v }
	tests := []struct {
		name      string
		signer    Signer
		list      string
		limit     *int
		after     *string
		wantCode  apierr.Code
		wantLimit int
		wantAfter bool
	}{
		{"defaults", s, "conversations", nil, nil, "", 25, false},
		{"empty cursor", s, "conversations", limit(1), str(""), "", 1, false},
		{"its own cursor", s, "conversations", limit(100), &good, "", 100, true},
		{"limit zero", s, "conversations", limit(0), nil, apierr.InvalidLimit, 0, false},
		{"limit over 100", s, "conversations", limit(101), nil, apierr.InvalidLimit, 0, false},
		{"tampered", s, "conversations", nil, &tampered, apierr.InvalidCursor, 0, false},
		{"another list", s, "contacts", nil, &good, apierr.InvalidCursor, 0, false},
		{"another secret", Signer{Secrets: signing.Secrets{"secret-two"}}, "conversations", nil, &good, apierr.InvalidCursor, 0, false},
		{"rotated: the old secret's cursor", rotated, "conversations", nil, &good, "", 25, true},
		{"no signature", s, "conversations", nil, str("abc"), apierr.InvalidCursor, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.signer.Page(tt.list, tt.limit, tt.after)
			var code apierr.Code
			if e, ok := apierr.As(err); ok {
				code = e.Code
			}
			if code != tt.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", code, tt.wantCode, err)
			}
			if err != nil {
				return
			}
			if p.Limit != tt.wantLimit || (p.After != nil) != tt.wantAfter {
				t.Errorf("page = %+v, want limit %d, after %v", p, tt.wantLimit, tt.wantAfter)
			}
			if p.After != nil && (!p.After.At.Equal(pos.At) || p.After.ID != pos.ID) {
				t.Errorf("after = %+v, want %+v", *p.After, pos)
			}
		})
	}
}
