package repo

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

var (
	idMu   sync.Mutex
	lastID [18]byte
)

// NewID returns prefix + 48 bits of milliseconds + 96 random bits, encoded so
// that ids sort by creation time. Within one millisecond the
// random part counts up, so rows made in order list in order.
func NewID(prefix string, now time.Time) string {
	var b [18]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	_, _ = rand.Read(b[6:])
	idMu.Lock()
	if string(b[:6]) <= string(lastID[:6]) {
		b = lastID
		for i := len(b) - 1; i >= 6; i-- {
			if b[i]++; b[i] != 0 {
				break
			}
		}
	}
	lastID = b
	idMu.Unlock()
	return prefix + idEncoding.EncodeToString(b[:])
}
