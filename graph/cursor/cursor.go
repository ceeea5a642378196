// Package cursor signs list positions, so only cursors this service returned,
// for the same list, are accepted back (spec Pagination).
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Page sizes (spec Pagination).
const (
	defaultLimit = 25
	maxLimit     = 100
)

type cursorBody struct {
	List string    `json:"l"`
	At   time.Time `json:"t"`
	ID   string    `json:"i"`
}

// Signer signs the cursors of every list under the service secret, and
// takes back those of any of the secrets.
type Signer struct{ Secrets signing.Secrets }

// Encode signs a list position so that only cursors this service returned,
// for this list, are accepted back.
func (s Signer) Encode(list string, p repo.Position) string {
	body, err := json.Marshal(cursorBody{List: list, At: p.At, ID: p.ID})
	if err != nil {
		panic(fmt.Sprintf("cursor: encode %s: %v", list, err)) // a struct of strings and a time always encodes
	}
	payload := base64.RawURLEncoding.EncodeToString(body)
	return payload + "." + mac(s.Secrets.Signing(), payload)
}

func mac(secret, payload string) string {
	m := hmac.New(sha256.New, []byte("cursor:"+secret))
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// Page turns limit and cursor arguments into a repo page for one list.
func (s Signer) Page(list string, limit *int, after *string) (repo.Page, error) {
	p := repo.Page{Limit: defaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > maxLimit {
			return p, apierr.New(apierr.InvalidLimit, "limit must be between 1 and 100.")
		}
		p.Limit = *limit
	}
	if after == nil || *after == "" {
		return p, nil
	}
	bad := apierr.New(apierr.InvalidCursor, "starting_after is not a cursor this list returned.")
	payload, sig, ok := strings.Cut(*after, ".")
	if !ok || !s.Secrets.Verify(sig, func(secret string) string { return mac(secret, payload) }) {
		return p, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var c cursorBody
	if err != nil || json.Unmarshal(raw, &c) != nil || c.List != list {
		return p, bad
	}
	p.After = &repo.Position{At: c.At, ID: c.ID}
	return p, nil
}

// Trim cuts the extra row a repo list returns and gives the next cursor.
func Trim[T any](r Signer, list string, rows []T, p repo.Page, pos func(T) repo.Position) ([]T, bool, *string) {
	if len(rows) <= p.Limit {
		return rows, false, nil
	}
	rows = rows[:p.Limit]
	c := r.Encode(list, pos(rows[len(rows)-1]))
	return rows, true, &c
}
