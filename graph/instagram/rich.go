package instagram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// referral is an Instagram referral's typed form (docs/instagram.md).
func referral(r *meta.InstagramReferralData) *model.Referral {
	if r == nil {
		return nil
	}
	out := &model.Referral{SourceType: r.Source, Ref: r.Ref, AdID: string(r.AdID)}
	if out.AdID != "" {
		out.SourceID = out.AdID
	}
	if d := r.AdsContextData; d != nil {
		out.AdTitle, out.Headline, out.ImageURL, out.VideoURL = d.AdTitle, d.AdTitle, d.PhotoURL, d.VideoURL
	}
	return out
}

// richDM is what a DM carries besides its text and files, and the type it
// is stored as: a story (reply or mention), a share (post, reel), an
// interactive (quick_reply), an unsupported message, or text and media.
func richDM(m *meta.InstagramMessage) (string, model.Rich) {
	mid := m.MID
	rich := model.Rich{ProviderMessageID: &mid, Referral: referral(m.Referral)}
	if m.ReplyToMID != "" {
		rich.ReplyTo = &model.ReplyTo{ProviderMessageID: m.ReplyToMID}
	}
	msgType := ""
	if s := m.ReplyToStory; s != nil {
		rich.Story, msgType = &model.Story{Kind: "reply", ID: s.ID, URL: s.URL}, "story"
	}
	if m.QuickReplyPayload != "" {
		rich.Interactive = &model.Interactive{Kind: "quick_reply", Payload: m.QuickReplyPayload, Title: m.Text}
		msgType = "interactive"
	}
	for _, a := range m.Attachments {
		switch {
		case igch.Downloadable(a.Type):
			if msgType == "" && m.Text == "" {
				msgType = a.Type
			}
		case a.Type == "story_mention":
			rich.Story, msgType = &model.Story{Kind: "mention", ID: a.ID, URL: a.URL}, "story"
		default: // share, ig_reel, reel, ig_post, ...
			if rich.Share == nil {
				rich.Share = &model.Share{URL: a.URL, Title: a.Title, ID: a.ID}
			}
			if msgType == "" {
				msgType = "share"
			}
		}
	}
	if m.IsUnsupported && msgType == "" && m.Text == "" {
		rich.Unsupported = &model.Unsupported{Title: "a message Instagram does not pass on"}
		msgType = "unsupported"
	}
	return msgType, rich
}

// Other keeps a messaging event of a kind msgsvc does not model as an
// unsupported message of its sender (logged with its kind), once.
func (s *Service) Other(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramOther) error {
	slog.Warn("instagram: messaging event of a kind not modelled kept as unsupported", "account", acc.ID, "kind", e.Kind)
	in := inbound.Message{Channel: "instagram", Type: "unsupported", Rich: model.Rich{
		Unsupported: &model.Unsupported{Code: "not_modelled", Title: "Instagram messaging event " + strconv.Quote(e.Kind)}}}
	return s.once(ctx, scope, acc, e.SenderID, e.Timestamp.UnixMilli(), e.Kind, in)
}

// Reaction keeps a customer's reaction (react) or its removal (unreact,
// emoji "") as a reaction message naming the message reacted to.
func (s *Service) Reaction(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramReaction) error {
	emoji := e.Emoji
	if e.Action == "unreact" {
		emoji = ""
	}
	in := inbound.Message{Channel: "instagram", Type: "reaction", Rich: model.Rich{
		Reaction: &model.Reaction{Emoji: emoji, ProviderMessageID: e.MID}}}
	return s.once(ctx, scope, acc, e.SenderID, e.Timestamp.UnixMilli(), "reaction:"+e.Action+":"+e.MID, in)
}

// Postback keeps a tap on a postback button or an ice breaker as an
// interactive message (kind postback); a new customer's starts the
// conversation.
func (s *Service) Postback(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramPostback) error {
	title := e.Title
	in := inbound.Message{Channel: "instagram", Type: "interactive", Rich: model.Rich{Referral: referral(e.Referral),
		Interactive: &model.Interactive{Kind: "postback", Payload: e.Payload, Title: e.Title}}}
	if title != "" {
		in.Text = &title
	}
	if e.MID != "" {
		mid := e.MID
		in.Rich.ProviderMessageID = &mid
		return s.received(ctx, scope, acc, e.SenderID, e.Timestamp, mid, in)
	}
	return s.once(ctx, scope, acc, e.SenderID, e.Timestamp.UnixMilli(), "postback", in)
}

// Referral keeps a customer opening the thread from an ad or an ig.me link
// as a system message (kind referral) carrying the referral.
func (s *Service) Referral(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramReferral) error {
	in := inbound.Message{Channel: "instagram", Type: "system", Rich: model.Rich{Referral: referral(&e.Referral),
		System: &model.System{Kind: "referral"}}}
	return s.once(ctx, scope, acc, e.SenderID, e.Timestamp.UnixMilli(), "referral", in)
}

// once receives an event that has no mid of its own, deduplicated on its
// sender, time and kind (Meta retries a webhook).
func (s *Service) once(ctx context.Context, scope repo.Scope, acc *repo.Account, sender string, at int64, kind string, in inbound.Message) error {
	if sender == "" {
		return fmt.Errorf("instagram: %s event without a sender", kind)
	}
	key := kind + ":" + sender + ":" + strconv.FormatInt(at, 10)
	return s.received(ctx, scope, acc, sender, time.UnixMilli(at).UTC(), key, in)
}

// received stores an event of a customer as an inbound message once per
// key.
func (s *Service) received(ctx context.Context, scope repo.Scope, acc *repo.Account, sender string, at time.Time, key string, in inbound.Message) error {
	if known, err := s.known(ctx, scope, acc, key); known || err != nil {
		return err
	}
	in.From, in.At, in.Stored = sender, at, storedOnce(key, "received")
	_, err := s.Inbound.Receive(ctx, scope, acc, in)
	if errors.Is(err, errDuplicate) {
		return nil
	}
	return err
}

// Edit applies a customer's edit of a DM of the account to its text and
// emits message.status with the message as it now is; a mid of no message
// of the account is ignored.
func (s *Service) Edit(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramEdit) error {
	return s.update(ctx, scope, acc, e.MID, func(q repo.Queries, scope repo.Scope, msg *repo.Message) (bool, error) {
		changed, err := q.SetMessageText(ctx, scope, msg.ID, e.Text)
		if changed {
			text := e.Text
			msg.Text = &text
		}
		return changed, err
	})
}

// Read marks the account's outbound message the customer has seen read
// (with message.status), unless it is read already.
func (s *Service) Read(ctx context.Context, scope repo.Scope, acc *repo.Account, e *meta.InstagramRead, at time.Time) error {
	return s.update(ctx, scope, acc, e.MID, func(q repo.Queries, scope repo.Scope, msg *repo.Message) (bool, error) {
		if msg.Direction != "outbound" || msg.Status == "read" || msg.Status == "failed" || msg.Status == "sending" {
			return false, nil
		}
		var d model.Delivery
		if len(msg.Delivery) > 0 {
			if err := json.Unmarshal(msg.Delivery, &d); err != nil {
				return false, err
			}
		}
		ts := model.NewTimestamp(at)
		d.ReadAt = &ts
		if d.DeliveredAt == nil {
			d.DeliveredAt = &ts
		}
		var err error
		if msg.Delivery, err = json.Marshal(d); err != nil {
			return false, err
		}
		msg.Status = "read"
		return true, q.UpdateMessageDelivery(ctx, msg)
	})
}

// update changes the message a mid names among the account's messages
// (an event the account routed vouches for nothing else) under the lock
// order of every writer of its events (conversation, then message), and
// records message.status when fn changed it.
func (s *Service) update(ctx context.Context, scope repo.Scope, acc *repo.Account, mid string, fn func(q repo.Queries, scope repo.Scope, msg *repo.Message) (bool, error)) error {
	changed := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		part, err := q.ProviderMessageOn(ctx, scope, acc.ID, "instagram", mid)
		if errors.Is(err, repo.ErrNotFound) {
			slog.Info("instagram: event names no message of the account; ignored", "account", acc.ID)
			return nil
		}
		if err != nil {
			return err
		}
		conv, msg, err := q.LockConversationThenMessage(ctx, scope, part.MessageID)
		if err != nil {
			return err
		}
		if changed, err = fn(q, scope, msg); err != nil || !changed {
			return err
		}
		return s.Events.Record(ctx, q, scope, event.MessageStatus, view.Conversation(conv), view.Message(msg))
	})
	if err == nil && changed {
		s.Events.Committed(ctx)
	}
	return err
}
