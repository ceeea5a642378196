package webhook

import (
	"testing"

	"github.com/msgsvc/msgsvc/graph/signing"
)

func TestSigningSecretsAcrossARotation(t *testing.T) {
	old := &Service{Secrets: signing.Secrets{"old-secret-0123456789"}}
	rotated := &Service{Secrets: signing.Secrets{"new-secret-0123456789", "old-secret-0123456789"}}
	newOnly := &Service{Secrets: signing.Secrets{"new-secret-0123456789"}}
	byOld, err := old.sealSecret("we_1", "whsec_old")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.openSecret("we_1", byOld); err != nil || got != "whsec_old" {
		t.Fatalf("an old secret through the rotated list: %q, %v", got, err)
	}
	if _, err := newOnly.openSecret("we_1", byOld); err != errSecretSealed {
		t.Fatalf("an old secret with the new secret alone: %v", err)
	}
	byRotated, err := rotated.sealSecret("we_1", "whsec_new")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := newOnly.openSecret("we_1", byRotated); err != nil || got != "whsec_new" {
		t.Fatalf("a new secret is not sealed with the first: %q, %v", got, err)
	}
	resealed, changed, err := rotated.ResealSecret("we_1", byOld)
	if err != nil || !changed {
		t.Fatalf("ResealSecret of an old value: %v, %v", changed, err)
	}
	if got, err := newOnly.openSecret("we_1", resealed); err != nil || got != "whsec_old" {
		t.Fatalf("resealed: %q, %v", got, err)
	}
	if _, changed, err := rotated.ResealSecret("we_1", byRotated); err != nil || changed {
		t.Fatalf("ResealSecret of a current value: %v, %v", changed, err)
	}
	if _, _, err := rotated.ResealSecret("we_2", byOld); err != errSecretSealed {
		t.Fatalf("another endpoint's value: %v", err)
	}
}
