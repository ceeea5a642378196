package widget

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/graph/apierr"
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
)

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
		h.read(ctx, c, v, pub)
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
	if p.Type == "message" && p.Message != nil {
		if err := h.Visitors.Delivered(context.WithoutCancel(ctx), p.workspaceID, p.Message.ID); err != nil && !isAPIError(err) {
			slog.Warn("widget: mark delivered", "message_id", p.Message.ID, "err", err)
		}
	}
	return true
}

// read is the connection's one reader: typing is published (at most every
// typingEvery), read receipts move their message to read. Unknown frames
// are ignored.
func (h *Hub) read(ctx context.Context, c *websocket.Conn, v *repo.Visitor, pub Publish) {
	var lastTyping time.Time
	for {
		var f Frame
		if err := wsjson.Read(ctx, c, &f); err != nil {
			return
		}
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
