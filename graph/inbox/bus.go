package inbox

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
)

// Bus carries the inbox's signals (presence, notes) to every serve
// process; widget.Publish is one, over Redis pub/sub like the typing
// notices. Each process listens once and hands signals to its own
// subscribers, so an idle subscription costs no connection and no query.
type Bus interface {
	PublishInbox(ctx context.Context, payload []byte) error
	// ListenInbox hears every process's signals until ctx ends.
	ListenInbox(ctx context.Context) (<-chan []byte, error)
}

const (
	kindPresence = "presence"
	kindNote     = "note"
)

// signal is one presence change or new note, as the bus carries it.
type signal struct {
	Kind           string          `json:"kind"`
	WorkspaceID    string          `json:"workspace_id"`
	Livemode       bool            `json:"livemode"`
	ConversationID string          `json:"conversation_id"`
	Presence       *model.Presence `json:"presence,omitempty"`
	Note           *model.Note     `json:"note,omitempty"`
}

// hub hands the signals this process hears to its subscribers.
type hub struct {
	mu        sync.Mutex
	subs      map[chan signal]struct{}
	listening bool
}

// publishTimeout bounds a publish: presence and note signals are best
// effort (a note is stored before; presence repeats).
const publishTimeout = time.Second

// publish sends a signal to every process's subscribers (or this
// process's, without a Bus).
func (s *Service) publish(ctx context.Context, sig signal) {
	if s.Bus == nil {
		s.hub.deliver(sig)
		return
	}
	b, err := json.Marshal(sig)
	if err != nil {
		slog.Warn("inbox: signal does not encode", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := s.Bus.PublishInbox(ctx, b); err != nil {
		slog.Warn("inbox: publish signal", "kind", sig.Kind, "err", err)
	}
}

// subscribe returns a channel of every signal until ctx ends.
func (s *Service) subscribe(ctx context.Context) <-chan signal {
	ch := make(chan signal, 32)
	h := &s.hub
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan signal]struct{}{}
	}
	h.subs[ch] = struct{}{}
	if s.Bus != nil && !h.listening {
		h.listening = true
		go s.listen()
	}
	h.mu.Unlock()
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}()
	return ch
}

func (h *hub) deliver(sig signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- sig:
		default: // a subscriber too slow misses some; presence repeats
		}
	}
}

// listen hears the bus for the life of the process, listening again
// after Redis drops the subscription.
func (s *Service) listen() {
	for {
		in, err := s.Bus.ListenInbox(context.Background())
		if err != nil {
			slog.Warn("inbox: listen for signals; trying again", "err", err)
			time.Sleep(time.Second)
			continue
		}
		for b := range in {
			var sig signal
			if err := json.Unmarshal(b, &sig); err != nil {
				continue
			}
			s.hub.deliver(sig)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
