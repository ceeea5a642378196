// Package widget is website chat's real-time side: the hub that
// pushes outbound messages, typing and the close of a chat to connected
// widgets over WebSocket, across every serve process through Redis
// pub/sub; the website channel's adapter; and the embeddable widget.js.
//
// Postgres is the source of truth. A push is never the message itself
// travelling through Redis: every commit of the service publishes a wake-up,
// and each process then asks Postgres which outbound website messages its
// connected visitors have not received (status sent) and which of their
// chats closed. A lost wake-up is caught up by the next one or by the
// periodic check, and a visitor who was offline gets what they missed when
// they connect.
package widget

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/graph/ai"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// Visitors is the visitor domain the hub needs; visitor.Service is one.
type Visitors interface {
	Pending(ctx context.Context, contactIDs []string) ([]repo.PendingMessage, error)
	Chats(ctx context.Context, contactIDs []string) ([]repo.ChatState, error)
	Delivered(ctx context.Context, workspaceID, messageID string) error
	Read(ctx context.Context, v *repo.Visitor, messageID string) error
	MessageView(m *repo.Message) *visitor.Message
}

// DefaultPrefix names the Redis pub/sub channels; every process of one
// installation must use the same.
const DefaultPrefix = "msgsvc:widget:"

// Push is one frame to a widget.
type Push struct {
	Type            string           `json:"type"`
	Message         *visitor.Message `json:"message,omitempty"`
	ConversationID  string           `json:"conversation_id,omitempty"`
	Status          string           `json:"status,omitempty"`
	RatingRequested *bool            `json:"rating_requested,omitempty"`

	// workspaceID is where a pushed message lives (to mark it delivered).
	workspaceID string
}

// Typing is a typing notice on the pub/sub channel <prefix>typing: From is
// "agent" (shown to the visitor) or "visitor" (for the dashboards).
type Typing struct {
	From           string `json:"from"`
	WorkspaceID    string `json:"workspace_id"`
	ConversationID string `json:"conversation_id,omitempty"`
	ContactID      string `json:"contact_id"`
	WebsiteID      string `json:"website_id"`
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

// Hub keeps the widgets connected to this process.
type Hub struct {
	Visitors Visitors
	Redis    *redis.Client
	// Prefix of the pub/sub channels; DefaultPrefix when empty.
	Prefix string
	// Every is the period of the safety check; 3 s when zero.
	Every time.Duration

	mu   sync.Mutex
	subs map[*sub]bool
	wake chan struct{}
	done chan struct{} // closed when Run returns: connections end too
	once sync.Once
}

func (h *Hub) init() {
	h.once.Do(func() {
		h.subs = map[*sub]bool{}
		h.wake = make(chan struct{}, 1)
		h.done = make(chan struct{})
		if h.Prefix == "" {
			h.Prefix = DefaultPrefix
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
// every wake-up and every h.Every, until ctx ends.
func (h *Hub) Run(ctx context.Context) {
	h.init()
	defer close(h.done)
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
			h.check(ctx)
		case <-tick.C:
			h.check(ctx)
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
	for s := range h.subs {
		if s.visitor.ContactID == t.ContactID && s.visitor.WebsiteID == t.WebsiteID {
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

// register adds a connected widget and checks at once, so it is pushed
// what it missed.
func (h *Hub) register(v *repo.Visitor) *sub {
	h.init()
	s := &sub{visitor: v, out: make(chan Push, 64), pushed: map[string]bool{}, closed: map[string]bool{}}
	h.mu.Lock()
	h.subs[s] = true
	h.mu.Unlock()
	h.Wake()
	return s
}

func (h *Hub) unregister(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// snapshot is the connected widgets and their contacts.
func (h *Hub) snapshot() ([]*sub, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := make([]*sub, 0, len(h.subs))
	seen := map[string]bool{}
	var contacts []string
	for s := range h.subs {
		subs = append(subs, s)
		if !seen[s.visitor.ContactID] {
			seen[s.visitor.ContactID] = true
			contacts = append(contacts, s.visitor.ContactID)
		}
	}
	return subs, contacts
}

// check pushes to each connected widget the outbound messages of its
// visitor not yet received, and the close of its latest chat.
func (h *Hub) check(ctx context.Context) {
	subs, contacts := h.snapshot()
	if len(contacts) == 0 {
		return
	}
	pending, err := h.Visitors.Pending(ctx, contacts)
	if err != nil {
		slog.Warn("widget: pending messages", "err", err)
		return
	}
	chats, err := h.Visitors.Chats(ctx, contacts)
	if err != nil {
		slog.Warn("widget: chat states", "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range subs {
		if h.subs[s] {
			h.deliver(s, pending, chats)
		}
	}
}

// deliver offers one widget its pending messages and its chat's close.
func (h *Hub) deliver(s *sub, pending []repo.PendingMessage, chats []repo.ChatState) {
	v := s.visitor
	still := map[string]bool{}
	for i := range pending {
		m := &pending[i]
		if m.ContactID != v.ContactID || m.WebsiteID != v.WebsiteID {
			continue
		}
		still[m.ID] = true
		if !s.pushed[m.ID] && s.offer(Push{Type: "message", Message: h.Visitors.MessageView(&m.Message), workspaceID: m.WorkspaceID}) {
			s.pushed[m.ID] = true
		}
	}
	for id := range s.pushed {
		if !still[id] {
			delete(s.pushed, id)
		}
	}
	for _, c := range chats {
		if c.ContactID != v.ContactID || c.WebsiteID != v.WebsiteID || c.Status != "closed" || s.closed[c.ConversationID] {
			continue
		}
		requested := !c.Rated
		if s.offer(Push{Type: "conversation", ConversationID: c.ConversationID, Status: "closed", RatingRequested: &requested}) {
			s.closed[c.ConversationID] = true
		}
	}
}

// Publish is what the rest of the service tells the hubs through Redis.
type Publish struct {
	Redis  *redis.Client
	Prefix string
}

func (p Publish) prefix() string {
	if p.Prefix == "" {
		return DefaultPrefix
	}
	return p.Prefix
}

// publishTimeout bounds a wake-up; a lost one costs a widget at most the
// hubs' periodic check.
const publishTimeout = 250 * time.Millisecond

// Committed publishes a wake-up after a commit: every hub then checks its
// widgets. A lost one is caught up by the hubs' periodic check.
func (p Publish) Committed(ctx context.Context) {
	if p.Redis == nil {
		return
	}
	// A Waker calls this off the request that committed; a Redis that does
	// not answer holds its goroutine publishTimeout, no more.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := p.Redis.Publish(ctx, p.prefix()+"wake", "1").Err(); err != nil {
		slog.Warn("widget: publish wake-up; the periodic check will catch up", "err", err)
	}
}

// AgentTyping publishes an agent's typing notice: every hub pushes it to
// the widgets of its visitor.
func (p Publish) AgentTyping(ctx context.Context, n ai.TypingNotice) error {
	return p.Typing(ctx, Typing{From: "agent", WorkspaceID: n.WorkspaceID, ConversationID: n.ConversationID,
		ContactID: n.ContactID, WebsiteID: n.WebsiteID})
}

// VisitorTyping subscribes to the visitors' typing notices of every serve
// process; the channel closes when ctx ends.
func (p Publish) VisitorTyping(ctx context.Context) (<-chan ai.TypingNotice, error) {
	if p.Redis == nil {
		return nil, nil
	}
	ps := p.Redis.Subscribe(ctx, p.prefix()+"typing")
	if _, err := ps.Receive(ctx); err != nil { // subscribed before it returns
		ps.Close()
		return nil, err
	}
	out := make(chan ai.TypingNotice, 16)
	go func() {
		defer close(out)
		defer ps.Close()
		msgs := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-msgs:
				if !ok {
					return
				}
				var t Typing
				if err := json.Unmarshal([]byte(m.Payload), &t); err != nil || t.From != "visitor" {
					continue
				}
				select {
				case out <- ai.TypingNotice{WorkspaceID: t.WorkspaceID, ConversationID: t.ConversationID,
					ContactID: t.ContactID, WebsiteID: t.WebsiteID}:
				default:
				}
			}
		}
	}()
	return out, nil
}

// Typing publishes a typing notice to every hub (and the dashboards).
func (p Publish) Typing(ctx context.Context, t Typing) error {
	if p.Redis == nil {
		return nil
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return p.Redis.Publish(ctx, p.prefix()+"typing", b).Err()
}
