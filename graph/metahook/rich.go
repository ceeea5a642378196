package metahook

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/model"
)

// richOf is the type a WhatsApp message is stored as and what it carries
// besides its text (docs/whatsapp.md): WhatsApp's button becomes an
// interactive of kind button, request_welcome a system message, and a type
// msgsvc does not model an unsupported message (logged with its type).
func richOf(m *meta.WhatsAppMessage) (string, model.Rich) {
	wamid := m.ID
	rich := model.Rich{ProviderMessageID: &wamid}
	if c := m.Context; c != nil {
		rich.Forwarded = c.Forwarded || c.FrequentlyForwarded
		if c.ID != "" || c.ReferredProduct != nil {
			rich.ReplyTo = &model.ReplyTo{ProviderMessageID: c.ID}
			if p := c.ReferredProduct; p != nil {
				rich.ReplyTo.ReferredProduct = &model.ReferredProduct{CatalogID: p.CatalogID, ProductRetailerID: p.ProductRetailerID}
			}
		}
	}
	rich.Referral = referralOf(m.Referral)
	switch m.Type {
	case "text", "image", "video", "audio", "document", "sticker":
		return m.Type, rich
	case "location":
		if l := m.Location; l != nil {
			rich.Location = &model.Location{Latitude: l.Latitude, Longitude: l.Longitude, Name: l.Name, Address: l.Address, URL: l.URL}
			return "location", rich
		}
	case "contacts":
		err := json.Unmarshal(m.Contacts, &rich.Contacts)
		if rich.Contacts = slices.DeleteFunc(rich.Contacts, func(c *model.ContactCard) bool { return c == nil }); err == nil && len(rich.Contacts) > 0 {
			for _, c := range rich.Contacts {
				c.Phones, c.Emails, c.Addresses, c.Urls = orEmpty(c.Phones), orEmpty(c.Emails), orEmpty(c.Addresses), orEmpty(c.Urls)
			}
			return "contacts", rich
		}
	case "interactive", "button":
		if c := m.Interactive; c != nil {
			rich.Interactive = &model.Interactive{Kind: c.Kind, ID: c.ID, Payload: c.Payload, Title: c.Title,
				Description: c.Description, Name: c.Name, Response: c.Response}
			return "interactive", rich
		}
	case "reaction":
		if r := m.Reaction; r != nil {
			rich.Reaction = &model.Reaction{Emoji: r.Emoji, ProviderMessageID: r.MessageID}
			return "reaction", rich
		}
	case "order":
		if o := m.Order; o != nil {
			rich.Order = typedOrder(o)
			return "order", rich
		}
	case "system":
		if sys := m.System; sys != nil {
			newID := sys.NewWAID
			if newID == "" && sys.Type == "user_changed_number" {
				newID = sys.WAID
			}
			rich.System = &model.System{Kind: sys.Type, Body: sys.Body, NewWaID: newID}
			return "system", rich
		}
	case "request_welcome":
		rich.System = &model.System{Kind: "request_welcome"}
		return "system", rich
	case "unsupported":
		rich.Unsupported = &model.Unsupported{Title: m.Unsupported}
		if len(m.Errors) > 0 {
			e := m.Errors[0]
			rich.Unsupported = &model.Unsupported{Code: strconv.Itoa(e.Code), Title: e.Title, Details: e.Details}
			if rich.Unsupported.Title == "" {
				rich.Unsupported.Title = e.Message
			}
		}
		return "unsupported", rich
	}
	slog.Warn("meta hook: WhatsApp message of a kind not modelled kept as unsupported", "kind", m.Type, "wamid", m.ID)
	rich.Unsupported = &model.Unsupported{Code: "not_modelled", Title: "WhatsApp message type " + strconv.Quote(m.Type)}
	return "unsupported", rich
}

// typedOrder is a WhatsApp order's typed form.
func typedOrder(o *meta.WhatsAppOrder) *model.Order {
	out := &model.Order{CatalogID: o.CatalogID, Text: o.Text, Items: []*model.OrderItem{}}
	for _, it := range o.ProductItems {
		q, _ := it.Quantity.Int64()
		price, _ := it.ItemPrice.Float64()
		out.Items = append(out.Items, &model.OrderItem{ProductID: it.ProductRetailerID, Quantity: int(q), Price: price, Currency: it.Currency})
	}
	return out
}

// orEmpty is a list, [] when Meta left it out.
func orEmpty[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// referralOf is a Click-to-WhatsApp ad's typed form, nil without one.
func referralOf(r *meta.WhatsAppReferral) *model.Referral {
	if r == nil {
		return nil
	}
	out := &model.Referral{SourceType: r.SourceType, SourceID: r.SourceID, SourceURL: r.SourceURL,
		Headline: r.Headline, Body: r.Body, MediaType: r.MediaType, ImageURL: r.ImageURL, VideoURL: r.VideoURL,
		ThumbnailURL: r.ThumbnailURL, CtwaClid: r.CtwaClid}
	if r.SourceType == "ad" {
		out.AdID = r.SourceID
	}
	if r.WelcomeMessage != nil {
		out.WelcomeMessage = r.WelcomeMessage.Text
	}
	return out
}
