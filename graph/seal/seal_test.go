package seal

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, err := New(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32))), "")
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := key.Seal([]byte("EAAG-token"), "channel_accounts:wa_main")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "EAAG") {
		t.Fatalf("sealed value shows the plaintext: %s", sealed)
	}
	again, _ := key.Seal([]byte("EAAG-token"), "channel_accounts:wa_main")
	if again == sealed {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	got, err := key.Open(sealed, "channel_accounts:wa_main")
	if err != nil || string(got) != "EAAG-token" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := New("", "another-secret-of-16+")
	cases := map[string]func() ([]byte, error){
		"other row":      func() ([]byte, error) { return key.Open(sealed, "channel_accounts:wa_other") },
		"other key":      func() ([]byte, error) { return other.Open(sealed, "channel_accounts:wa_main") },
		"not base64":     func() ([]byte, error) { return key.Open("%%%", "x") },
		"too short":      func() ([]byte, error) { return key.Open("AAAA", "x") },
		"flipped a byte": func() ([]byte, error) { return key.Open(flip(sealed), "channel_accounts:wa_main") },
	}
	for name, open := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := open(); !errors.Is(err, ErrOpen) {
				t.Fatalf("err = %v, want ErrOpen", err)
			}
		})
	}
}

func flip(s string) string {
	raw, _ := base64.StdEncoding.DecodeString(s)
	raw[len(raw)-1] ^= 1
	return base64.StdEncoding.EncodeToString(raw)
}

func TestNew(t *testing.T) {
	for _, tc := range []struct{ encoded, secret, wantErr string }{
		{"", "", "neither"},
		{"not base64!", "", "base64"},
		{base64.StdEncoding.EncodeToString(make([]byte, 16)), "", "16 bytes"},
		{"", "a-development-secret", ""},
	} {
		t.Run(tc.encoded+"/"+tc.secret, func(t *testing.T) {
			k, err := New(tc.encoded, tc.secret)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s := fmt.Sprint(k); strings.Contains(s, tc.secret) || s != "seal.Key(redacted)" {
					t.Fatalf("key prints as %q", s)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
	var zero Key
	if _, err := zero.Seal([]byte("x"), ""); !errors.Is(err, ErrNoKey) {
		t.Fatalf("zero key Seal err = %v", err)
	}
}

func TestRingSealsWithTheFirstKeyAndOpensWithAll(t *testing.T) {
	oldKey, _ := New(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("o", 32))), "")
	newKey, _ := New(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("n", 32))), "")
	ring := Ring(newKey, oldKey)
	byOld, err := oldKey.Seal([]byte("old-token"), "row")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ring.Open(byOld, "row"); err != nil || string(got) != "old-token" {
		t.Fatalf("old-key value through the ring: %q, %v", got, err)
	}
	byRing, err := ring.Seal([]byte("new-token"), "row")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := newKey.Open(byRing, "row"); err != nil || string(got) != "new-token" {
		t.Fatalf("the ring did not seal with its first key: %q, %v", got, err)
	}
	if _, err := oldKey.Open(byRing, "row"); !errors.Is(err, ErrOpen) {
		t.Fatalf("the old key opens a new value: %v", err)
	}
	if _, err := ring.Open(byOld, "other row"); !errors.Is(err, ErrOpen) {
		t.Fatalf("the ring opens another row's value: %v", err)
	}

	resealed, changed, err := ring.Reseal(byOld, "row")
	if err != nil || !changed {
		t.Fatalf("Reseal of an old-key value: changed %v, %v", changed, err)
	}
	if got, err := newKey.Open(resealed, "row"); err != nil || string(got) != "old-token" {
		t.Fatalf("resealed value under the first key: %q, %v", got, err)
	}
	if again, changed, err := ring.Reseal(byRing, "row"); err != nil || changed || again != byRing {
		t.Fatalf("Reseal of a first-key value: changed %v, %v", changed, err)
	}
	if _, _, err := newKey.Reseal(byOld, "row"); !errors.Is(err, ErrOpen) {
		t.Fatalf("Reseal of a value no key opens: %v", err)
	}
}
