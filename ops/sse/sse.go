// Package sse reads a Server-Sent Events stream (the WHATWG event-stream
// format): `msgsvc listen` and tests read GET /v1/events/stream with it.
package sse

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// MaxLine bounds one line of the stream (an event's data is one line).
const MaxLine = 32 << 20

// Event is one dispatched event.
type Event struct {
	ID   string
	Type string
	Data []byte
}

// Reader reads events from a stream.
type Reader struct {
	s *bufio.Scanner
	// Retry is the reconnection time the server last asked for, or 0.
	Retry time.Duration
	// LastID is the id of the last event read, kept across events without
	// one, as a browser's EventSource does.
	LastID string
}

// NewReader reads events from r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), MaxLine)
	return &Reader{s: s}
}

// Next returns the next event; comments and keep-alives are skipped. It
// returns io.EOF (or the read error) when the stream ends; an event cut off
// by the end is not returned.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data [][]byte
	seen := false
	for r.s.Scan() {
		line := r.s.Text()
		if line == "" {
			if seen {
				ev.ID = r.LastID
				if ev.Type == "" {
					ev.Type = "message"
				}
				ev.Data = bytes.Join(data, []byte("\n"))
				return ev, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			r.LastID, seen = value, true
		case "event":
			ev.Type, seen = value, true
		case "data":
			data, seen = append(data, []byte(value)), true
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil {
				r.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if err := r.s.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}
