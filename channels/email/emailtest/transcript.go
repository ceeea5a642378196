package emailtest

import (
	"bytes"
	"net"
	"strings"
	"sync"
)

// transcript records one SMTP connection as the relay saw it: "C: " lines
// the client sent, "S: " lines the relay answered. The mail's data (after
// 354, up to its final dot) is one line "C: <data>"; after a STARTTLS the
// relay accepted, the rest is encrypted and recorded as "[TLS]".
type transcript struct {
	mu      sync.Mutex
	lines   []string
	partial [2][]byte // client, server
	inData  bool
	tls     bool
	lastCmd string
}

func (t *transcript) add(server bool, b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tls {
		return
	}
	side := 0
	if server {
		side = 1
	}
	t.partial[side] = append(t.partial[side], b...)
	for {
		i := bytes.Index(t.partial[side], []byte("\r\n"))
		if i < 0 {
			return
		}
		line := string(t.partial[side][:i])
		t.partial[side] = t.partial[side][i+2:]
		t.line(server, line)
		if t.tls {
			return
		}
	}
}

func (t *transcript) line(server bool, line string) {
	switch {
	case server:
		t.lines = append(t.lines, "S: "+line)
		if strings.HasPrefix(line, "354") {
			t.inData = true
			t.lines = append(t.lines, "C: <data>")
		}
		if strings.HasPrefix(line, "220 ") && strings.EqualFold(t.lastCmd, "STARTTLS") {
			t.tls = true
			t.lines = append(t.lines, "[TLS]")
		}
	case t.inData:
		if line == "." {
			t.inData = false
			t.lines = append(t.lines, "C: .")
		}
	default:
		t.lastCmd = line
		t.lines = append(t.lines, "C: "+line)
	}
}

func (t *transcript) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// recorded is a connection whose bytes go to a transcript.
type recorded struct {
	net.Conn
	t *transcript
}

func (c *recorded) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.t.add(false, p[:n])
	return n, err
}

func (c *recorded) Write(p []byte) (int, error) {
	c.t.add(true, p)
	return c.Conn.Write(p)
}

// recordingListener hands out recorded connections.
type recordingListener struct {
	net.Listener
	sink *Sink
}

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	t := &transcript{}
	l.sink.mu.Lock()
	l.sink.transcripts = append(l.sink.transcripts, t)
	l.sink.mu.Unlock()
	return &recorded{Conn: c, t: t}, nil
}

// Transcripts are the SMTP dialogues of every connection so far, in order:
// one line each, "C: " from the client and "S: " from the relay.
func (s *Sink) Transcripts() []string {
	s.mu.Lock()
	ts := append([]*transcript(nil), s.transcripts...)
	s.mu.Unlock()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}
