// Package logging builds msgsvc's slog logger: text for a
// developer's terminal, JSON in production (MSGSVC_LOG_FORMAT). Whatever a
// caller passes, an attribute whose name says it holds a credential or a
// message body is written as "[redacted]": the rule is "never a secret,
// token or message body in a log", and this is its last line of defence.
package logging

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
)

// Redacted replaces the value of an attribute that must never be logged.
const Redacted = "[redacted]"

// sensitive are attribute-name parts that mark a credential or a body.
var sensitive = []string{"secret", "token", "password", "passwd", "authorization", "api_key", "apikey",
	"private_key", "cookie", "signature", "body", "text", "html", "content", "credential"}

// Sensitive says whether an attribute of this name is redacted. Every log
// line asks for each of its attributes, whose names are few and come back,
// so the answers for up to maxKnownKeys names are kept.
func Sensitive(key string) bool {
	if v, ok := knownKeys.Load(key); ok {
		return v.(bool)
	}
	k := strings.ToLower(key)
	found := false
	for _, s := range sensitive {
		if strings.Contains(k, s) {
			found = true
			break
		}
	}
	if knownCount.Add(1) <= maxKnownKeys {
		knownKeys.Store(key, found)
	}
	return found
}

var (
	knownKeys  sync.Map
	knownCount atomic.Int64
)

const maxKnownKeys = 1024

// New returns a logger writing to w in format "json" or "text" (anything
// else is text), at level. To a Buffered w, a line at Warn or above is
// written at once.
func New(format string, w io.Writer, level slog.Leveler) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redact}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	if b, ok := w.(*Buffered); ok {
		h = flushing{h, b}
	}
	return slog.New(h)
}

func redact(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && (a.Key == slog.MessageKey || a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.SourceKey) {
		return a
	}
	if Sensitive(a.Key) && a.Value.Kind() != slog.KindGroup {
		return slog.String(a.Key, Redacted)
	}
	return a
}
