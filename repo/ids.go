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
// random part counts up, so rows made in order list in order, by a random
// step of 62 bits: one id does not tell the next (an outbound email's id
// is its bounce address, which a recipient reads).
func NewID(prefix string, now time.Time) string {
	var b [18]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	_, _ = rand.Read(b[6:])
	step := binary.BigEndian.Uint64(b[10:])>>2 | 1<<62
	idMu.Lock()
	if string(b[:6]) <= string(lastID[:6]) {
		b = lastID
		low := binary.BigEndian.Uint64(b[10:])
		binary.BigEndian.PutUint64(b[10:], low+step)
		if low+step < low {
			// The carry (into the milliseconds after 2^34 ids in one).
			for i := 9; i >= 0; i-- {
				if b[i]++; b[i] != 0 {
					break
				}
			}
		}
	}
	lastID = b
	idMu.Unlock()
	return prefix + idEncoding.EncodeToString(b[:])
}
