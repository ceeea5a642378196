package metahook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/repo"
)

// handleAll handles a hook's events in order. After an event of a
// customer failed (other than a status still early), the customer's later
// events of the hook wait for its retry, so they are not stored before it.
func (s *Service) handleAll(ctx context.Context, h *repo.ProviderHook, events []meta.Event) error {
	var failed error
	var held []string
	for _, ev := range events {
		keys := eventKeys(ev)
		if slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(held, k) }) {
			slog.Info("meta hook event left for the retry: an earlier event of its customer failed",
				"hook_id", h.ID, "channel", ev.Channel(), "route", ev.RouteID())
			continue
		}
		if err := s.handleSafely(ctx, h, ev); err != nil {
			log := slog.Warn
			if errors.Is(err, ErrStatusEarly) {
				log = slog.Info
			} else {
				held = append(held, keys...)
			}
			log("meta hook event failed", "hook_id", h.ID, "channel", ev.Channel(), "route", ev.RouteID(), "err", err)
			failed = errors.Join(failed, err)
		}
	}
	return failed
}

// handleSafely is handle with a panic turned into the event's failure: a
// hook that makes processing panic is retried and given up like any other
// failing hook, and never takes down the process (the sweep runs it outside
// the job runner's recovery).
func (s *Service) handleSafely(ctx context.Context, h *repo.ProviderHook, ev meta.Event) (err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("meta hook event panicked", "hook_id", h.ID, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("metahook: processing the event panicked: %v", v)
		}
	}()
	return s.handle(ctx, h, ev)
}

// withoutNUL is a JSON payload whose \u0000 escapes are \ufffd: Postgres
// stores a NUL in no text or jsonb value, so a message carrying one would
// fail every attempt to store it.
func withoutNUL(raw []byte) []byte {
	nul := []byte(`\u0000`)
	if !bytes.Contains(raw, nul) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] != '\\' || i+1 == len(raw):
			out = append(out, raw[i])
		case bytes.HasPrefix(raw[i:], nul):
			out = append(out, `\ufffd`...)
			i += len(nul) - 1
		default: // another escape, such as \\: taken whole
			out = append(out, raw[i], raw[i+1])
			i++
		}
	}
	return out
}
