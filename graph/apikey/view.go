package apikey

import (
	"crypto/rand"
	"math/big"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

const secretAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewSecret returns a key secret: svc_live_ or svc_test_ and 32 base62
// characters from crypto/rand (190 bits).
func NewSecret(live bool) string {
	b := []byte(prefix(live))
	for range 32 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(secretAlphabet))))
		if err != nil {
			panic("apikey: crypto/rand failed: " + err.Error()) // the system's randomness is gone
		}
		b = append(b, secretAlphabet[n.Int64()])
	}
	return string(b)
}

func prefix(live bool) string {
	if live {
		return "svc_live_"
	}
	return "svc_test_"
}

func mode(live bool) string {
	if live {
		return "live"
	}
	return "test"
}

// Status is a key's state at a time, as authentication decides it:
// revoked, expired, rolled (also in its grace period) or active.
func Status(k *repo.APIKeyRecord, now time.Time) string {
	switch {
	case k.Revoked:
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	case k.RolledTo != nil:
		return "rolled"
	}
	return "active"
}

// View is a key as the portal shows it: never its secret or hash.
func View(k *repo.APIKeyRecord, now time.Time) *model.APIKey {
	return &model.APIKey{ID: k.ID, Name: k.Name, Mode: mode(k.Livemode), Prefix: prefix(k.Livemode), Last4: k.SecretLast4,
		Scopes: view.OrEmpty(k.Scopes), Channels: view.OrEmpty(k.Channels), WebsiteIds: view.OrEmpty(k.WebsiteIDs),
		IPAllowlist: view.OrEmpty(k.IPAllowlist), CreatedAt: model.TimestampPtr(k.CreatedAt),
		LastUsedAt: model.TimestampPtr(k.LastUsedAt), ExpiresAt: model.TimestampPtr(k.ExpiresAt), Status: Status(k, now),
		RolledTo: k.RolledTo, GraceUntil: model.TimestampPtr(k.GraceUntil), RevokedAt: model.TimestampPtr(k.RevokedAt)}
}
