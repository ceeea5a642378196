package widget

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix begins the names of the Redis pub/sub channels; the Redis
// database number follows it (ChannelPrefix), since pub/sub ignores the
// database: installations on one Redis server in different databases do
// not hear each other. Every process of one installation must use the same.
const DefaultPrefix = "msgsvc:widget:"

// ChannelPrefix is the prefix of the pub/sub channels of an installation
// whose Redis client is rdb: DefaultPrefix and its database number.
func ChannelPrefix(rdb *redis.Client) string {
	if rdb == nil {
		return DefaultPrefix
	}
	return fmt.Sprintf("%sdb%d:", DefaultPrefix, rdb.Options().DB)
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

// Publish is what the rest of the service tells the hubs through Redis.
type Publish struct {
	Redis  *redis.Client
	Prefix string
}

func (p Publish) prefix() string {
	if p.Prefix == "" {
		return ChannelPrefix(p.Redis)
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
func (p Publish) AgentTyping(ctx context.Context, n model.TypingNotice) error {
	return p.Typing(ctx, Typing{From: "agent", WorkspaceID: n.WorkspaceID, ConversationID: n.ConversationID,
		ContactID: n.ContactID, WebsiteID: n.WebsiteID})
}

// VisitorTyping subscribes to the visitors' typing notices of every serve
// process; the channel closes when ctx ends.
func (p Publish) VisitorTyping(ctx context.Context) (<-chan model.TypingNotice, error) {
	if p.Redis == nil {
		return nil, nil
	}
	ps := p.Redis.Subscribe(ctx, p.prefix()+"typing")
	if _, err := ps.Receive(ctx); err != nil { // subscribed before it returns
		ps.Close()
		return nil, err
	}
	out := make(chan model.TypingNotice, 16)
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
				case out <- model.TypingNotice{WorkspaceID: t.WorkspaceID, ConversationID: t.ConversationID,
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

// PublishInbox publishes one of the agent inbox's signals (presence,
// notes) to every serve process.
func (p Publish) PublishInbox(ctx context.Context, payload []byte) error {
	if p.Redis == nil {
		return nil
	}
	return p.Redis.Publish(ctx, p.prefix()+"inbox", payload).Err()
}

// ListenInbox hears the agent inbox's signals of every serve process; the
// channel closes when ctx ends or the subscription drops.
func (p Publish) ListenInbox(ctx context.Context) (<-chan []byte, error) {
	if p.Redis == nil {
		return nil, fmt.Errorf("widget: no Redis to listen on")
	}
	ps := p.Redis.Subscribe(ctx, p.prefix()+"inbox")
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, err
	}
	out := make(chan []byte, 64)
	go func() {
		defer close(out)
		defer ps.Close()
		for m := range ps.Channel() {
			select {
			case out <- []byte(m.Payload):
			default: // a process too slow misses some; presence repeats
			}
		}
	}()
	return out, nil
}
