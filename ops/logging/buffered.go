package logging

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// FlushEvery is how long a log line may wait in a Buffered writer.
const FlushEvery = 200 * time.Millisecond

// bufferSize is how many bytes of lines a Buffered writer holds before it
// writes them at once.
const bufferSize = 64 << 10

// Buffered gathers log lines and writes them to its writer together, so
// that a request's line costs no system call of its own: FlushEvery after
// the first line waiting, at once when bufferSize bytes wait, and with any
// line at level Warn or above (a logger of New flushes after such a line,
// and so writes it with what waited before it, in order). Flush writes
// what waits; the process calls it on its way out. A process killed
// outright loses at most FlushEvery of Info lines.
type Buffered struct {
	w     io.Writer
	every time.Duration

	mu    sync.Mutex
	buf   []byte
	timer *time.Timer
}

// NewBuffered returns a Buffered writer to w that waits at most every
// before it writes (FlushEvery when zero).
func NewBuffered(w io.Writer, every time.Duration) *Buffered {
	if every <= 0 {
		every = FlushEvery
	}
	return &Buffered{w: w, every: every}
}

// Write takes one line (slog writes a record in one call).
func (b *Buffered) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= bufferSize {
		return len(p), b.flush()
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.every, func() { _ = b.Flush() })
	}
	return len(p), nil
}

// Flush writes the lines that wait.
func (b *Buffered) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flush()
}

func (b *Buffered) flush() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*bufferSize {
		b.buf = nil // after a burst of long lines, not kept
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// flushing is a handler whose lines at Warn or above are written at once,
// with whatever waits before them.
type flushing struct {
	slog.Handler
	b *Buffered
}

func (h flushing) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushing) WithAttrs(as []slog.Attr) slog.Handler {
	return flushing{h.Handler.WithAttrs(as), h.b}
}

func (h flushing) WithGroup(name string) slog.Handler {
	return flushing{h.Handler.WithGroup(name), h.b}
}
