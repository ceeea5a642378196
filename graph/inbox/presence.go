package inbox

import (
	"context"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// PresenceTTL is how long a presence lasts unless repeated: the app
// repeats setPresence every 10 s while the conversation is open.
const PresenceTTL = 30 * time.Second

// SetPresence is setPresence: the member views (and maybe types in) a
// conversation. Other members' conversationPresence hears it; a member
// typing in an open live website chat is shown to the visitor as the
// agent typing (agentTyping, as herself).
func (s *Service) SetPresence(ctx context.Context, conversationID string, typing, viewing bool, memberID *string) (bool, error) {
	a, m, err := s.Acting(ctx, memberID)
	if err != nil {
		return false, err
	}
	c, err := s.Store.Conversation(ctx, a.Scope(), conversationID)
	if err != nil {
		return false, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	now := s.Clock.Now()
	expires := now.Add(PresenceTTL)
	if !viewing {
		typing, expires = false, now
	}
	s.publish(ctx, signal{Kind: kindPresence, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode, ConversationID: c.ID,
		Presence: &model.Presence{ConversationID: c.ID, Member: m.author(), Viewing: viewing, Typing: typing,
			ExpiresAt: model.NewTimestamp(expires)}})
	if typing && s.Typing != nil && c.Channel == "website" && c.Status == "open" {
		if _, err := s.Typing.AgentTyping(ctx, c.ID, m.ID); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Presence is conversationPresence: the other members viewing or typing in
// one conversation of the caller's workspace and mode.
func (s *Service) Presence(ctx context.Context, conversationID string) (<-chan *model.Presence, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.Conversation(ctx, a.Scope(), conversationID); err != nil {
		return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
	}
	return relay(ctx, s.subscribe(ctx), func(sig signal) *model.Presence {
		if sig.Kind != kindPresence || !sameRoom(sig, a, conversationID) || sig.Presence == nil ||
			sig.Presence.Member == nil || sig.Presence.Member.ID == a.MemberID {
			return nil
		}
		return sig.Presence
	}), nil
}

// NotesFeed is conversationNotes: new notes of the caller's workspace and
// mode, of one conversation ("" for all).
func (s *Service) NotesFeed(ctx context.Context, conversationID string) (<-chan *model.Note, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if conversationID != "" {
		if _, err := s.Store.Conversation(ctx, a.Scope(), conversationID); err != nil {
			return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
		}
	}
	return relay(ctx, s.subscribe(ctx), func(sig signal) *model.Note {
		if sig.Kind != kindNote || !sameRoom(sig, a, conversationID) {
			return nil
		}
		return sig.Note
	}), nil
}

// sameRoom says whether a signal is of the caller's workspace and mode
// (and, when set, one conversation).
func sameRoom(sig signal, a *auth.Actor, conversationID string) bool {
	return sig.WorkspaceID == a.WorkspaceID && sig.Livemode == a.Livemode &&
		(conversationID == "" || sig.ConversationID == conversationID)
}

// relay passes the signals pick keeps (non-nil) to a subscription until
// ctx ends.
func relay[T any](ctx context.Context, in <-chan signal, pick func(signal) *T) <-chan *T {
	out := make(chan *T, 16)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-in:
				v := pick(sig)
				if v == nil {
					continue
				}
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
