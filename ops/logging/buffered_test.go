package logging

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer the timer's flush may write while the
// test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.buf.Write(p)
}

func (l *lockedBuffer) read() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String(), l.n
}

// Info lines wait; a Warn line is written at once, after them, in one
// write; Flush writes what waits.
func TestBufferedWritesWarningsAtOnceInOrder(t *testing.T) {
	out := &lockedBuffer{}
	b := NewBuffered(out, time.Hour)
	log := New("text", b, slog.LevelInfo)
	log.Info("request", "n", 1)
	log.Info("request", "n", 2)
	if got, _ := out.read(); got != "" {
		t.Fatalf("written before a flush: %q", got)
	}
	log.Warn("provider down")
	got, writes := out.read()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if writes != 1 || len(lines) != 3 || !strings.Contains(lines[0], "n=1") || !strings.Contains(lines[1], "n=2") ||
		!strings.Contains(lines[2], "provider down") {
		t.Fatalf("%d writes of %q; want the three lines in order in one", writes, got)
	}
	log.With("job", "x").Info("job")
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, writes := out.read(); writes != 2 || !strings.Contains(got, "job=x") {
		t.Fatalf("after Flush: %d writes of %q", writes, got)
	}
}

// A full buffer is written without waiting for the interval.
func TestBufferedWritesAFullBuffer(t *testing.T) {
	out := &lockedBuffer{}
	b := NewBuffered(out, time.Hour)
	line := strings.Repeat("x", 1000) + "\n"
	for range bufferSize/len(line) + 1 {
		if _, err := b.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if got, writes := out.read(); writes != 1 || len(got) < bufferSize {
		t.Fatalf("%d writes, %d bytes; want one write of the full buffer", writes, len(got))
	}
}

// A line waits at most the interval.
func TestBufferedWritesAfterTheInterval(t *testing.T) {
	out := &lockedBuffer{}
	log := New("json", NewBuffered(out, 10*time.Millisecond), slog.LevelInfo)
	log.Info("request", "request_id", "req_1")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, _ := out.read(); strings.Contains(got, "req_1") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the line was never written")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
