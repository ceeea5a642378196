package widget

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Frame is what a widget sends: {"type":"typing"} or {"type":"read","message_id":…}.
type Frame struct {
	Type      string `json:"type"`
	MessageID string `json:"message_id"`
}

const (
	readLimit    = 4096
	writeTimeout = 10 * time.Second
	pingEvery    = 25 * time.Second
	typingEvery  = 2 * time.Second

	// frameBurst and frameRate are a socket's budget of frames from its
	// widget: a burst (a reloaded widget reports up to 50 messages read
	// at once), then frameRate a second. A socket past its budget is
	// closed with StatusPolicyViolation (1008), reason "too many frames".
	frameBurst = 100
	frameRate  = 2
)

// budget is a token bucket of frames, on the hub's clock.
type budget struct {
	tokens float64
	at     time.Time
}

// spend takes one frame from the budget; false when none is left.
func (b *budget) spend(now time.Time) bool {
	if b.at.IsZero() {
		b.tokens = frameBurst
	} else if now.After(b.at) {
		b.tokens = min(frameBurst, b.tokens+now.Sub(b.at).Seconds()*frameRate)
	}
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Serve runs one accepted widget connection of visitor v until it closes
// or ctx ends: pushes go out as they come, each pushed message becomes
// delivered once written, and the widget's typing and read frames are
// handled.
func (h *Hub) Serve(ctx context.Context, c *websocket.Conn, v *repo.Visitor, pub Publish) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.SetReadLimit(readLimit)
	s := h.register(v)
	defer h.unregister(s)
	go func() {
		defer cancel()
		h.read(ctx, c, s, pub)
	}()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			c.Close(websocket.StatusNormalClosure, "")
			return
		case <-h.done:
			c.Close(websocket.StatusGoingAway, "the server is shutting down")
			return
		case <-ping.C:
			pctx, pcancel := context.WithTimeout(ctx, writeTimeout)
			err := c.Ping(pctx)
			pcancel()
			if err != nil {
				c.CloseNow()
				return
			}
		case p := <-s.out:
			if !h.write(ctx, c, p) {
				c.CloseNow()
				return
			}
		}
	}
}

// write sends one push; a message written becomes delivered.
func (h *Hub) write(ctx context.Context, c *websocket.Conn, p Push) bool {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := wsjson.Write(wctx, c, p); err != nil {
		slog.Debug("widget: write; the widget went away", "err", err)
		return false
	}
	if p.Type == "message" && p.messageID != "" {
		if err := h.Visitors.Delivered(context.WithoutCancel(ctx), p.workspaceID, p.messageID); err != nil && !isAPIError(err) {
			slog.Warn("widget: mark delivered", "message_id", p.messageID, "err", err)
		}
	}
	return true
}

// read is the connection's one reader: typing is published (at most every
// typingEvery), read receipts move their message to read. Unknown frames
// are ignored. Every frame spends the socket's budget.
//
// A receipt costs a store call only when it moves the socket's read mark
// forward: message ids sort by creation time, and the widget reports the
// messages it shows oldest first, so a receipt repeated, or for a message
// older than one already reported, is dropped.
func (h *Hub) read(ctx context.Context, c *websocket.Conn, s *sub, pub Publish) {
	var lastTyping time.Time
	var frames budget
	mark := ""
	for {
		var f Frame
		if err := wsjson.Read(ctx, c, &f); err != nil {
			return
		}
		if !frames.spend(h.Clock.Now()) {
			c.Close(websocket.StatusPolicyViolation, "too many frames")
			return
		}
		v := h.visitorOf(s) // given its contact by its first message
		switch f.Type {
		case "typing":
			if time.Since(lastTyping) < typingEvery || pub.Redis == nil {
				continue
			}
			lastTyping = time.Now()
			err := pub.Typing(ctx, Typing{From: "visitor", WorkspaceID: v.WorkspaceID, ConversationID: h.openChat(ctx, v),
				ContactID: v.ContactID, WebsiteID: v.WebsiteID})
			if err != nil {
				slog.Warn("widget: publish typing", "err", err)
			}
		case "read":
			if f.MessageID <= mark {
				continue
			}
			mark = f.MessageID
			if err := h.Visitors.Read(ctx, v, f.MessageID); err != nil && !isAPIError(err) {
				slog.Warn("widget: read receipt", "message_id", f.MessageID, "err", err)
			}
		}
	}
}

func isAPIError(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e)
}

// openChat is the visitor's open chat on its website ("" when none is
// open: the visitor types before the first message starts one).
func (h *Hub) openChat(ctx context.Context, v *repo.Visitor) string {
	if v.ContactID == noContact {
		return ""
	}
	chats, err := h.Visitors.Chats(ctx, []string{v.ContactID})
	if err != nil {
		slog.Warn("widget: the visitor's chat", "err", err)
		return ""
	}
	for _, c := range chats {
		if c.ContactID == v.ContactID && c.WebsiteID == v.WebsiteID && c.Status == "open" {
			return c.ConversationID
		}
	}
	return ""
}
