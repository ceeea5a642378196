// Package widget is website chat's real-time side: the hub that
// pushes outbound messages, typing and the close of a chat to connected
// widgets over WebSocket, across every serve process through Redis
// pub/sub; the website channel's adapter; and the embeddable widget.js.
//
// Postgres is the source of truth. A push is never the message itself
// travelling through Redis: every commit of the service publishes a wake-up,
// and each process then asks Postgres which visitors have something new
// since its last check (an outbound website message no widget has received,
// a chat closed) and, for those of them connected to it, what they have. A
// lost wake-up is caught up by the next one or by the periodic check, and a
// visitor who was offline gets what they missed when they connect.
package widget

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// Visitors is the visitor domain the hub needs; cmd/msgsvc hands it the
// visitor service.
type Visitors interface {
	Changed(ctx context.Context, since time.Time) ([]string, error)
	Pending(ctx context.Context, contactIDs []string) ([]repo.PendingMessage, error)
	Chats(ctx context.Context, contactIDs []string) ([]repo.ChatState, error)
	Delivered(ctx context.Context, workspaceID, messageID string) error
	Read(ctx context.Context, v *repo.Visitor, messageID string) error
	Contacts(ctx context.Context, visitorIDs []string) ([]repo.VisitorContact, error)
	// MessageView is a stored message as its visitor sees it, pushed as
	// JSON.
	MessageView(m *repo.Message) any
}

// Push is one frame to a widget.
type Push struct {
	Type            string `json:"type"`
	Message         any    `json:"message,omitempty"`
	ConversationID  string `json:"conversation_id,omitempty"`
	Status          string `json:"status,omitempty"`
	RatingRequested *bool  `json:"rating_requested,omitempty"`

	// workspaceID and messageID name a pushed message (to mark it
	// delivered).
	workspaceID, messageID string
}

// sub is one connected widget.
type sub struct {
	visitor *repo.Visitor
	out     chan Push
	// pushed are the pending messages handed to this widget (so the next
	// check does not hand them again before they are marked delivered);
	// closed are the chats whose close it was told.
	pushed map[string]bool
	closed map[string]bool
}

const (
	// Lag is how long before a check began a change may have been written
	// and still be committed after: a wake-up's check looks for changes
	// since the last check began, less Lag.
	Lag = 10 * time.Second
	// Recent is how far back the periodic check looks, for a wake-up lost
	// or a commit later than Lag; older than that, a visitor gets what it
	// missed when its widget connects again.
	Recent = time.Minute
)

// Hub keeps the widgets connected to this process. A check asks Postgres
// which visitors have something new since the last one (WebsiteChanges:
// the changes of that time, whoever is connected), and only for the
// connected ones among them, and the widgets connected since, what they
// have: a reply costs the work of its visitor, not of everyone connected.
type Hub struct {
	Visitors Visitors
	Redis    *redis.Client
	// Prefix of the pub/sub channels; ChannelPrefix(Redis) when empty.
	Prefix string
	// Every is the period of the safety check; 3 s when zero.
	Every time.Duration
	// Clock is the time of the checks' windows (the time changes are
	// written with); the wall clock when nil.
	Clock clock.Clock

	mu sync.Mutex
	// subs are the connected widgets by contact id; fresh, the contacts
	// of widgets connected since the last check began.
	subs  map[string]map[*sub]bool
	fresh map[string]bool
	// began is when the last check began (zero before the first).
	began time.Time

	wake chan struct{}
	done chan struct{} // closed when Run returns: connections end too
	once sync.Once
}

func (h *Hub) init() {
	h.once.Do(func() {
		h.subs = map[string]map[*sub]bool{}
		h.fresh = map[string]bool{}
		h.wake = make(chan struct{}, 1)
		h.done = make(chan struct{})
		if h.Prefix == "" {
			h.Prefix = ChannelPrefix(h.Redis)
		}
		if h.Every == 0 {
			h.Every = 3 * time.Second
		}
	})
}

// Wake asks for a check of this process's widgets soon; wake-ups coalesce.
func (h *Hub) Wake() {
	h.init()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Run listens to the pub/sub channels and checks the connected widgets on
// every wake-up (the changes since the last check) and every h.Every (the
// changes of the last Recent), until ctx ends.
func (h *Hub) Run(ctx context.Context) {
	h.init()
	defer close(h.done)
	h.mu.Lock()
	h.began = h.Clock.Now() // a widget connecting is checked in full
	h.mu.Unlock()
	ps := h.Redis.Subscribe(ctx, h.Prefix+"wake", h.Prefix+"typing")
	defer ps.Close()
	msgs := ps.Channel()
	tick := time.NewTicker(h.Every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			if m.Channel == h.Prefix+"typing" {
				h.typing(m.Payload)
			} else {
				h.Wake()
			}
		case <-h.wake:
			h.check(ctx, Lag, false)
		case <-tick.C:
			h.check(ctx, Recent, true)
		}
	}
}

// typing hands an agent's typing notice to the widgets of its visitor.
func (h *Hub) typing(payload string) {
	var t Typing
	if err := json.Unmarshal([]byte(payload), &t); err != nil || t.From != "agent" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[t.ContactID] {
		if s.visitor.WebsiteID == t.WebsiteID {
			s.offer(Push{Type: "typing", ConversationID: t.ConversationID})
		}
	}
}

// offer queues a push without blocking the hub; a widget too slow to take
// it gets it again from the next check (messages) or not at all (typing).
func (s *sub) offer(p Push) bool {
	select {
	case s.out <- p:
		return true
	default:
		return false
	}
}

// register adds a connected widget and asks for a check of its visitor at
// once, so it is pushed what it missed.
func (h *Hub) register(v *repo.Visitor) *sub {
	h.init()
	s := &sub{visitor: v, out: make(chan Push, 64), pushed: map[string]bool{}, closed: map[string]bool{}}
	h.mu.Lock()
	if h.subs[v.ContactID] == nil {
		h.subs[v.ContactID] = map[*sub]bool{}
	}
	h.subs[v.ContactID][s] = true
	h.fresh[v.ContactID] = true
	h.mu.Unlock()
	h.Wake()
	return s
}

func (h *Hub) unregister(s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := s.visitor.ContactID
	delete(h.subs[c], s)
	if len(h.subs[c]) == 0 {
		delete(h.subs, c)
	}
}

// check pushes to the connected widgets whose visitors changed (since the
// last check began less lag, or the last lag when periodic) or connected
// since the last check the outbound messages of their visitor not yet
// received, and the close of its latest chat.
func (h *Hub) check(ctx context.Context, lag time.Duration, periodic bool) {
	h.init()
	h.resolve(ctx)
	now := h.Clock.Now()
	h.mu.Lock()
	since := h.began.Add(-lag)
	if periodic {
		since = now.Add(-lag)
	}
	h.began = now
	asked := h.fresh
	h.fresh = map[string]bool{}
	connected := len(h.subs) > 0
	h.mu.Unlock()
	if !connected {
		return
	}
	changed, err := h.Visitors.Changed(ctx, since)
	if err != nil {
		slog.Warn("widget: changed visitors", "err", err)
		h.refresh(slices.Collect(maps.Keys(asked)))
		return
	}
	h.mu.Lock()
	for _, c := range changed {
		if h.subs[c] != nil {
			asked[c] = true
		}
	}
	h.mu.Unlock()
	contacts := slices.Collect(maps.Keys(asked))
	if len(contacts) == 0 {
		return
	}
	pending, err := h.Visitors.Pending(ctx, contacts)
	if err == nil {
		var chats []repo.ChatState
		if chats, err = h.Visitors.Chats(ctx, contacts); err == nil {
			h.deliver(contacts, pending, chats)
			return
		}
	}
	slog.Warn("widget: pending messages and chat states", "err", err)
	h.refresh(contacts)
}

// refresh asks the next check to look at contacts again (this one failed).
func (h *Hub) refresh(contacts []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range contacts {
		h.fresh[c] = true
	}
}

// deliver offers the widgets of contacts their pending messages and their
// chat's close.
func (h *Hub) deliver(contacts []string, pending []repo.PendingMessage, chats []repo.ChatState) {
	byContact := map[string][]*repo.PendingMessage{}
	for i := range pending {
		byContact[pending[i].ContactID] = append(byContact[pending[i].ContactID], &pending[i])
	}
	chatsOf := map[string][]repo.ChatState{}
	for _, c := range chats {
		chatsOf[c.ContactID] = append(chatsOf[c.ContactID], c)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range contacts {
		for s := range h.subs[c] {
			h.deliverTo(s, byContact[c], chatsOf[c])
		}
	}
}

// deliverTo offers one widget the pending messages and chat states of its
// contact: those of its website.
func (h *Hub) deliverTo(s *sub, pending []*repo.PendingMessage, chats []repo.ChatState) {
	v := s.visitor
	still := map[string]bool{}
	for _, m := range pending {
		if m.WebsiteID != v.WebsiteID {
			continue
		}
		still[m.ID] = true
		if !s.pushed[m.ID] && s.offer(Push{Type: "message", Message: h.Visitors.MessageView(&m.Message), workspaceID: m.WorkspaceID, messageID: m.ID}) {
			s.pushed[m.ID] = true
		}
	}
	for id := range s.pushed {
		if !still[id] {
			delete(s.pushed, id)
		}
	}
	for _, c := range chats {
		if c.WebsiteID != v.WebsiteID || c.Status != "closed" || s.closed[c.ConversationID] {
			continue
		}
		requested := !c.Rated
		if s.offer(Push{Type: "conversation", ConversationID: c.ConversationID, Status: "closed", RatingRequested: &requested}) {
			s.closed[c.ConversationID] = true
		}
	}
}
