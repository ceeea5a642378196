package repo

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"time"
)

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns prefix + 48 bits of milliseconds + 96 random bits, encoded so
// that ids sort by creation time (decisions 1).
func NewID(prefix string, now time.Time) string {
	var b [20]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	_, _ = rand.Read(b[6:18])
	return prefix + idEncoding.EncodeToString(b[:18])
}
