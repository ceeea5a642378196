package send

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// ReplyRules is replyRules: what the inbox's reply box shows before an
// agent's reply (agentReply) goes out, decided by the send's own rules
// (closedChatRule, windowRule, senderRules, recipientRules) run on that
// reply without sending it.
func (s *Service) ReplyRules(ctx context.Context, conversationID string) (*model.ReplyRules, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	now := s.Clock.Now()
	out := &model.ReplyRules{ConversationID: conversationID, Templates: []*model.ReplyTemplate{}}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := q.Conversation(ctx, scope, conversationID)
		if err != nil {
			return view.NotFound(err, apierr.ConversationNotFound, "conversation", conversationID)
		}
		t := &sendTarget{conv: c, lastInbound: c.LastInboundAt}
		if t.acc, err = q.Account(ctx, c.WorkspaceID, c.Channel, c.AccountID); err != nil && !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		if c.ContactID != nil {
			if t.contact, err = q.Contact(ctx, scope, *c.ContactID); err != nil && !errors.Is(err, repo.ErrNotFound) {
				return err
			}
		}
		req := &sendRequest{channel: c.Channel, sender: &Sender{Type: "agent"}}
		out.Channel = c.Channel
		out.Window = windowOf(c.Channel, c.Status == "open", c.IsComment, c.LastInboundAt, now)
		if c.Channel == "instagram" && !c.IsComment && !out.Window.Open && c.LastInboundAt != nil &&
			now.Before(c.LastInboundAt.Add(humanAgentWindow)) {
			until := c.LastInboundAt.Add(humanAgentWindow)
			out.HumanAgentUntil = model.TimestampPtr(&until)
		}
		if ct := t.contact; ct != nil {
			out.OptedOut = c.Channel == "whatsapp" && ct.OptOutWhatsapp || c.Channel == "instagram" && ct.OptOutInstagram ||
				c.Channel == "email" && ct.OptOutEmail
			out.Suppressed = c.Channel == "email" && len(ct.EmailSuppressed) > 0 && string(ct.EmailSuppressed) != "null"
		}
		refusal := s.replyRefusal(ctx, q, a, req, t, now)
		if out.Window.TemplateRequired && t.acc != nil {
			if out.Templates, err = s.replyTemplates(ctx, q, scope, t); err != nil {
				return err
			}
		}
		if c.Channel == "email" && t.acc != nil {
			out.Email = &model.ReplyEmail{From: req.from, To: []string{}, Cc: []string{}, Subject: nonEmptyPtr(replySubject(c))}
			if req.from == "" {
				out.Email.From = t.acc.Address
			}
			if t.contact != nil && t.contact.Email != nil {
				out.Email.To = []string{*t.contact.Email}
			}
		}
		if e, ok := apierr.As(refusal); ok {
			out.Refusal = &model.DeliveryError{Code: string(e.Code), Message: e.Message}
			return nil
		}
		return refusal
	})
	if err != nil {
		return nil, err
	}
	out.CanReply = out.Refusal == nil
	return out, nil
}

// replyRefusal is the first refusal an agent's plain text reply would get
// from the channel rules, in their order (channelRules), or nil.
func (s *Service) replyRefusal(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, now time.Time) error {
	if err := closedChatRule(req, t); err != nil {
		return err
	}
	if t.acc == nil && req.channel == "whatsapp" {
		return apierr.New(apierr.NoWhatsappAccount, "This conversation's WhatsApp number is gone.")
	}
	if err := windowRule(req, t.conv.IsComment, t.lastInbound, now); err != nil {
		return err
	}
	if req.channel == "email" && t.acc != nil {
		// An agent's reply runs as the service (internalActor), not the key.
		if err := s.senderRules(ctx, q, internalActor(a.Scope()), req, t); err != nil {
			return err
		}
	}
	return recipientRules(req, t, nil)
}

// replyTemplates are the approved templates of the conversation's number
// (MARKETING ones left out for a customer who stopped marketing), each
// with its body's parameters.
func (s *Service) replyTemplates(ctx context.Context, q repo.Queries, scope repo.Scope, t *sendTarget) ([]*model.ReplyTemplate, error) {
	rows, err := q.Templates(ctx, scope, []string{t.acc.ID})
	if err != nil {
		return nil, err
	}
	out := []*model.ReplyTemplate{}
	for _, tpl := range rows {
		if tpl.Status != "APPROVED" || tpl.Category == "MARKETING" && t.contact != nil && t.contact.MarketingOptOutWhatsapp {
			continue
		}
		params := []string{}
		if spec, err := channels.ParseTemplateSpec(tpl.Components, tpl.Body, tpl.ParameterFormat, tpl.Category); err == nil {
			params = append(params, spec.BodyParams...)
		}
		out = append(out, &model.ReplyTemplate{ID: tpl.ID, Name: tpl.Name, Language: tpl.Language, Category: tpl.Category,
			Body: tpl.Body, ParameterFormat: parameterFormat(tpl.ParameterFormat), Parameters: params,
			Components: model.JSON(tpl.Components)})
	}
	return out, nil
}

// replySubject is the subject of an email reply that gives none: the
// thread's, as a reply ("" without one).
func replySubject(c *repo.Conversation) string {
	if c == nil || c.Subject == nil {
		return ""
	}
	return "Re: " + strings.TrimPrefix(*c.Subject, "Re: ")
}
