package send

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Window is GET /v1/messaging-window, for a conversation or for a
// customer on a channel.
func (s *Service) Window(ctx context.Context, in model.MessagingWindowInput) (*model.MessagingWindow, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	if in.ConversationID != nil {
		if in.Channel != nil || in.To != nil || in.WhatsappAccountID != nil {
			return nil, apierr.New(apierr.InvalidRequest, "Give conversation_id, or channel with to; not both.")
		}
		c, err := s.Store.Conversation(ctx, a.Scope(), *in.ConversationID)
		if err != nil {
			return nil, view.NotFound(err, apierr.ConversationNotFound, "conversation", *in.ConversationID)
		}
		return windowOf(c.Channel, c.Status == "open", c.IsComment, c.LastInboundAt, now), nil
	}
	if in.Channel == nil || in.To == nil {
		return nil, apierr.New(apierr.InvalidRequest, "Give conversation_id, or channel with to.")
	}
	channel := *in.Channel
	if !channels.Valid(channel) || channel == "website" {
		return nil, apierr.New(apierr.InvalidRequest, "channel must be whatsapp, instagram or email (website chats have no window to ask about).")
	}
	if in.WhatsappAccountID != nil && channel != "whatsapp" {
		return nil, apierr.New(apierr.InvalidRequest, "whatsapp_account_id applies to the whatsapp channel only.")
	}
	req := &sendRequest{in: model.SendMessageInput{Channel: &channel, To: in.To, WhatsappAccountID: in.WhatsappAccountID}, channel: channel}
	if err := req.addresses(); err != nil {
		return nil, err
	}
	if channel == "email" {
		if err := a.CheckChannel(channel); err != nil {
			return nil, err
		}
		return windowOf(channel, true, false, nil, now), nil
	}
	if channel == "whatsapp" {
		numbers, err := s.reachableNumbers(ctx, a, in.WhatsappAccountID)
		if err != nil {
			return nil, err
		}
		req.numbers = numbers
	}
	var t *sendTarget
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if err := a.CheckChannel(channel); err != nil {
			return err
		}
		t = &sendTarget{}
		if c, err := q.ContactBy(ctx, a.Scope(), contact.IdentityColumn[channel], req.to); err == nil {
			t.contact = c
		} else if !errors.Is(err, repo.ErrNotFound) {
			return err
		}
		return s.newConversationAccount(ctx, q, a, req, t)
	})
	if err != nil {
		return nil, err
	}
	if channel == "whatsapp" && t.acc == nil {
		return nil, apierr.New(apierr.NoWhatsappAccount, "This key reaches no connected WhatsApp number.")
	}
	return windowOf(channel, true, false, t.lastInbound, now), nil
}

// windowOf describes the free-text window of a conversation: WhatsApp and
// Instagram direct messages allow free text for 24 hours after the customer
// wrote; Instagram comments take public replies at any time; website chats
// while open; email always.
func windowOf(channel string, open, comment bool, lastInbound *time.Time, now time.Time) *model.MessagingWindow {
	w := &model.MessagingWindow{Channel: channel, Open: open, LastInboundAt: model.TimestampPtr(lastInbound)}
	if (channel == "whatsapp" || channel == "instagram") && !comment {
		w.Open = windowOpen(lastInbound, now)
		if lastInbound != nil {
			until := lastInbound.Add(freeTextWindow)
			w.FreeTextUntil = model.TimestampPtr(&until)
		}
		w.TemplateRequired = channel == "whatsapp" && !w.Open
	}
	return w
}

// Templates is GET /v1/whatsapp/templates: templates of the numbers the
// key may use.
func (s *Service) Templates(ctx context.Context, filter *model.TemplateFilter) (*model.TemplatePage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var f model.TemplateFilter
	if filter != nil {
		f = *filter
	}
	if f.Status != nil && !slices.Contains([]string{"APPROVED", "PENDING", "REJECTED"}, *f.Status) {
		return nil, apierr.New(apierr.InvalidRequest, "status must be APPROVED, PENDING or REJECTED.")
	}
	if f.Category != nil && !slices.Contains([]string{"MARKETING", "UTILITY", "AUTHENTICATION"}, *f.Category) {
		return nil, apierr.New(apierr.InvalidRequest, "category must be MARKETING, UTILITY or AUTHENTICATION.")
	}
	numbers, err := s.Store.Accounts(ctx, a.Scope(), "whatsapp")
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(numbers))
	for _, n := range numbers {
		if f.WhatsappAccountID == nil || n.ID == *f.WhatsappAccountID {
			ids = append(ids, n.ID)
		}
	}
	page := &model.TemplatePage{Items: []*model.WhatsappTemplate{}}
	if f.WhatsappAccountID != nil && len(ids) == 0 {
		// A number outside the key is a 403, as for any filter.
		acc, err := s.Store.Account(ctx, a.WorkspaceID, "whatsapp", *f.WhatsappAccountID)
		if err == nil {
			if err := a.CheckChannel("whatsapp"); err != nil {
				return nil, err
			}
			return nil, a.CheckWebsite(acc.WebsiteID)
		}
		return page, nil
	}
	if len(ids) == 0 {
		return page, nil
	}
	rows, err := s.Store.Templates(ctx, a.Scope(), ids)
	if err != nil {
		return nil, err
	}
	for _, t := range rows {
		if (f.Status == nil || *f.Status == t.Status) && (f.Category == nil || *f.Category == t.Category) {
			page.Items = append(page.Items, &model.WhatsappTemplate{ID: t.ID, WhatsappAccountID: t.WhatsappAccountID,
				Name: t.Name, Language: t.Language, Category: t.Category, Status: t.Status, Body: t.Body,
				ParameterFormat: parameterFormat(t.ParameterFormat), Components: model.JSON(t.Components)})
		}
	}
	return page, nil
}

// EmailSenders is GET /v1/email/senders: the addresses the key may send
// from, and whether their domain is verified (only verified ones work).
func (s *Service) EmailSenders(ctx context.Context) (*model.EmailSenderPage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	accounts, err := s.Store.Accounts(ctx, a.Scope(), "email")
	if err != nil {
		return nil, err
	}
	domains, err := s.Store.EmailDomains(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	byName := map[string]repo.EmailDomain{}
	for _, d := range domains {
		byName[d.Domain] = d
	}
	page := &model.EmailSenderPage{Items: []*model.EmailSender{}}
	dns := map[string]*model.EmailSender{}
	for _, acc := range accounts {
		domain := strings.ToLower(acc.Address[strings.LastIndex(acc.Address, "@")+1:])
		sender := &model.EmailSender{ID: acc.ID, Address: acc.Address, Domain: domain,
			Verified: byName[domain].Verified, WebsiteID: acc.WebsiteID, ReturnPathDomain: domain, DNSRecords: []*model.DNSRecord{}}
		if d, ok := byName[domain]; ok && s.SenderDNS != nil {
			if dns[domain] == nil {
				dns[domain] = &model.EmailSender{}
				if dns[domain].ReturnPathDomain, dns[domain].DNSRecords, err = s.SenderDNS.Records(ctx, a.WorkspaceID, d); err != nil {
					return nil, err
				}
			}
			sender.ReturnPathDomain, sender.DNSRecords = dns[domain].ReturnPathDomain, dns[domain].DNSRecords
		}
		page.Items = append(page.Items, sender)
	}
	return page, nil
}

// parameterFormat is a template's parameter_format, POSITIONAL unless
// NAMED.
func parameterFormat(f string) string {
	if f == "NAMED" {
		return f
	}
	return "POSITIONAL"
}
