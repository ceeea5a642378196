package rest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// streamKeepAlive is how long a stream stays silent before it writes a
// comment line, so proxies and clients see the connection alive.
const streamKeepAlive = 15 * time.Second

// MaxStreamsPerKey is how many event streams one key may keep open on one
// serving process: an idle stream still costs its polls.
const MaxStreamsPerKey = 10

// Drain ends every open event stream (the server is shutting down): their
// clients reconnect with Last-Event-ID to another process or after the
// restart. http.Server.RegisterOnShutdown(s.Drain) wires it.
func (s *Server) Drain() {
	s.drainOnce.Do(func() {
		s.initDrain()
		close(s.draining)
	})
}

func (s *Server) drainSignal() <-chan struct{} {
	s.initDrain()
	return s.draining
}

// takeStream counts a stream of the key, unless it has MaxStreamsPerKey.
func (s *Server) takeStream(key string) bool {
	s.streamsMu.Lock()
	defer s.streamsMu.Unlock()
	if s.streams[key] >= MaxStreamsPerKey {
		return false
	}
	if s.streams == nil {
		s.streams = map[string]int{}
	}
	s.streams[key]++
	return true
}

// giveStream uncounts a stream takeStream counted.
func (s *Server) giveStream(key string) {
	s.streamsMu.Lock()
	defer s.streamsMu.Unlock()
	if s.streams[key]--; s.streams[key] <= 0 {
		delete(s.streams, key)
	}
}

func (s *Server) initDrain() {
	s.drainInit.Do(func() { s.draining = make(chan struct{}) })
}

// eventStream is GET /v1/events/stream: Server-Sent Events of the key's
// workspace and mode, each `id: evt_…`, `event: <type>`,
// `data: <envelope on one line>` and a blank line.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request, a *auth.Actor) {
	q, err := queryParams(r, "events")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var types []string
	if v := q["events"]; v != nil {
		if types, err = eventstream.ParseTypes(*v); err != nil {
			writeError(w, r, err)
			return
		}
	}
	if !s.takeStream(a.KeyID) {
		writeError(w, r, apierr.New(apierr.TooManyStreams,
			"This key has %d event streams open on this server, the most it may; close one before opening another.", MaxStreamsPerKey))
		return
	}
	defer s.giveStream(a.KeyID)
	stream, err := s.Resolver.EventStream.Open(r.Context(), a, r.Header.Get("Last-Event-ID"), types)
	if err != nil {
		writeError(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n: connected\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.drainSignal():
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		evs, err := stream.Next(ctx, streamKeepAlive)
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("event stream ended", "request_id", requestID(r.Context()), "err", err)
			}
			return
		}
		var buf bytes.Buffer
		if len(evs) == 0 {
			buf.WriteString(": keep-alive\n\n")
		}
		for _, ev := range evs {
			data, err := webhook.EventBody(ev.Envelope)
			if err != nil {
				slog.Error("event stream: stored envelope", "event_id", ev.ID, "err", err)
				return
			}
			fmt.Fprintf(&buf, "id: %s\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, data)
		}
		if _, err := w.Write(buf.Bytes()); err != nil || rc.Flush() != nil {
			return
		}
	}
}
