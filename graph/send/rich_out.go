package send

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// richOutbound resolves the messages reply_to and reaction name (the
// conversation's, with a provider id) and sets what the adapter sends and
// what the stored message shows.
func richOutbound(ctx context.Context, q repo.Queries, s repo.Scope, req *sendRequest, conv *repo.Conversation, msg *repo.Message, ob *channels.Message) error {
	in := req.in
	var rich model.Rich
	if in.ReplyTo != nil {
		pid, err := providerIDOf(ctx, q, s, conv, *in.ReplyTo.MessageID, "reply_to.message_id")
		if err != nil {
			return err
		}
		id := *in.ReplyTo.MessageID
		rich.ReplyTo, ob.ReplyTo = &model.ReplyTo{MessageID: &id, ProviderMessageID: pid}, pid
	}
	if r := in.Reaction; r != nil {
		pid, err := providerIDOf(ctx, q, s, conv, *r.MessageID, "reaction.message_id")
		if err != nil {
			return err
		}
		id := *r.MessageID
		rich.Reaction = &model.Reaction{Emoji: *r.Emoji, MessageID: &id, ProviderMessageID: pid}
		ob.Reaction = &channels.Reaction{ProviderID: pid, Emoji: *r.Emoji}
		msg.Type = "reaction"
	}
	if l := in.Location; l != nil {
		loc := model.Location{Latitude: *l.Latitude, Longitude: *l.Longitude, Name: deref(l.Name), Address: deref(l.Address)}
		rich.Location = &loc
		ob.Location = &channels.Location{Latitude: loc.Latitude, Longitude: loc.Longitude, Name: loc.Name, Address: loc.Address}
		msg.Type = "location"
	}
	if it := in.Interactive; it != nil {
		ob.Interactive = interactiveOut(it)
		rich.Interactive = &model.Interactive{Kind: ob.Interactive.Type}
		msg.Type = "interactive"
	}
	if len(in.Contacts) > 0 {
		cards, err := cardsOut(in.Contacts)
		if err != nil {
			return fmt.Errorf("send: contact cards: %w", err)
		}
		rich.Contacts, ob.Contacts = in.Contacts, cards
		msg.Type = "contacts"
	}
	if rich.ReplyTo == nil && rich.Reaction == nil && rich.Location == nil && rich.Interactive == nil && rich.Contacts == nil {
		return nil
	}
	var err error
	msg.Content, err = json.Marshal(rich)
	return err
}

// providerIDOf is the provider's id of one of the conversation's messages.
func providerIDOf(ctx context.Context, q repo.Queries, s repo.Scope, conv *repo.Conversation, id, field string) (string, error) {
	m, err := q.Message(ctx, s, id)
	if errors.Is(err, repo.ErrNotFound) || (err == nil && m.ConversationID != conv.ID) {
		return "", apierr.New(apierr.MessageNotFound, "%s: no message %s in conversation %s.", field, id, conv.ID)
	}
	if err != nil {
		return "", err
	}
	var rich model.Rich
	if len(m.Content) > 0 {
		if err := json.Unmarshal(m.Content, &rich); err != nil {
			return "", fmt.Errorf("send: content of %s: %w", id, err)
		}
	}
	if rich.ProviderMessageID != nil && *rich.ProviderMessageID != "" {
		return *rich.ProviderMessageID, nil
	}
	var d model.Delivery
	if len(m.Delivery) > 0 {
		if err := json.Unmarshal(m.Delivery, &d); err != nil {
			return "", fmt.Errorf("send: delivery of %s: %w", id, err)
		}
	}
	if d.ProviderMessageID != nil && *d.ProviderMessageID != "" {
		return *d.ProviderMessageID, nil
	}
	if !s.Livemode {
		return "", nil // the sandbox has no provider ids to quote
	}
	return "", apierr.New(apierr.InvalidRequest, "%s: message %s has no provider id yet (it was not sent through the provider).", field, id)
}

// interactiveOut is the adapter's form of the checked choices.
func interactiveOut(it *model.InteractiveInput) *channels.Interactive {
	out := &channels.Interactive{Type: deref(it.Type), Header: deref(it.Header), Footer: deref(it.Footer), Button: deref(it.Button),
		URL: deref(it.URL), DisplayText: deref(it.DisplayText), Elements: elementsOut(it.Elements)}
	for _, b := range it.Buttons {
		out.Choices = append(out.Choices, channels.Choice{ID: *b.ID, Title: *b.Title})
	}
	for _, q := range it.QuickReplies {
		out.Choices = append(out.Choices, channels.Choice{ID: *q.Payload, Title: *q.Title})
	}
	for _, sec := range it.Sections {
		cs := channels.Section{Title: deref(sec.Title)}
		for _, r := range sec.Rows {
			cs.Rows = append(cs.Rows, channels.Choice{ID: *r.ID, Title: *r.Title, Description: deref(r.Description)})
		}
		out.Sections = append(out.Sections, cs)
	}
	return out
}

// rememberWaID keeps the wa_id WhatsApp answered for a send when it is
// another form of the number sent to (Brazil's ninth digit, Argentina's
// 9), so the customer's messages from it land in this contact.
func rememberWaID(ctx context.Context, q repo.Queries, s repo.Scope, conv *repo.Conversation, ob *channels.Message, receipt *channels.Receipt) error {
	if ob.Channel != "whatsapp" || receipt.RecipientWaID == "" || conv.ContactID == nil || receipt.RecipientWaID == channels.Digits(ob.To) {
		return nil
	}
	return q.RememberWaID(ctx, s, receipt.RecipientWaID, *conv.ContactID)
}
