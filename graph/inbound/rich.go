package inbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// content is the stored form of m.Rich (nil when it has nothing), with the
// quoted and the reacted-to message found among the workspace's messages
// by their provider ids.
func content(ctx context.Context, q repo.Queries, s repo.Scope, m Message) (repo.JSONB, error) {
	rich := m.Rich
	if reflect.ValueOf(rich).IsZero() {
		return nil, nil
	}
	if r := rich.ReplyTo; r != nil && r.ProviderMessageID != "" && r.MessageID == nil {
		id, err := ours(ctx, q, s, m.Channel, r.ProviderMessageID)
		if err != nil {
			return nil, err
		}
		r.MessageID = id
	}
	if r := rich.Reaction; r != nil && r.ProviderMessageID != "" && r.MessageID == nil {
		id, err := ours(ctx, q, s, m.Channel, r.ProviderMessageID)
		if err != nil {
			return nil, err
		}
		r.MessageID = id
	}
	b, err := json.Marshal(rich)
	if err != nil {
		return nil, fmt.Errorf("inbound: content: %w", err)
	}
	return b, nil
}

// ours is the id of the scope's message a provider id names, nil when
// msgsvc has none (a message sent before the account was connected).
func ours(ctx context.Context, q repo.Queries, s repo.Scope, channel, providerID string) (*string, error) {
	id, err := q.ProviderMessageIn(ctx, s, channel, providerID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inbound: find message %s: %w", providerID, err)
	}
	return &id, nil
}

// attachment is the API object of an inbound file.
func attachment(f File, id string) *model.Attachment {
	a := &model.Attachment{ID: id, Filename: f.Filename, ContentType: f.ContentType, Size: len(f.Content),
		ProviderMediaID: f.ProviderMediaID, MimeType: f.MimeType, SHA256: f.SHA256, Caption: f.Caption}
	switch {
	case f.Failed != "":
		a.Status, a.Error = "failed", f.Failed
	case f.ProviderMediaID != "" || f.MimeType != "":
		a.Status = "stored"
	}
	return a
}

// emailRich is a mail's typed fields: provider_message_id its Message-ID,
// reply_to the message its In-Reply-To names (ours when msgsvc has it: an
// inbound mail by its Message-ID, or one of our sends).
func emailRich(ctx context.Context, q repo.Queries, s repo.Scope, in EmailIn) (repo.JSONB, error) {
	var rich model.Rich
	if in.MessageID != "" {
		id := in.MessageID
		rich.ProviderMessageID = &id
	}
	if len(in.InReplyTo) > 0 {
		rich.ReplyTo = &model.ReplyTo{ProviderMessageID: in.InReplyTo[0]}
		var ours []string
		for _, id := range in.OurIDs {
			if strings.Contains(in.InReplyTo[0], id+"@") {
				ours = append(ours, id)
			}
		}
		id, err := q.EmailMessageByHeader(ctx, s, in.InReplyTo[0], ours)
		switch {
		case err == nil:
			rich.ReplyTo.MessageID = &id
		case !errors.Is(err, repo.ErrNotFound):
			return nil, fmt.Errorf("inbound: find the mail replied to: %w", err)
		}
	}
	if rich.ProviderMessageID == nil && rich.ReplyTo == nil {
		return nil, nil
	}
	b, err := json.Marshal(rich)
	if err != nil {
		return nil, fmt.Errorf("inbound: content: %w", err)
	}
	return b, nil
}

// variantContact is the contact of another form of a WhatsApp number: the
// one a send's answer named with this wa_id, else one of
// contact.PhoneVariants (Brazil's ninth digit, Argentina's 9), so a reply
// from the wa_id Meta uses joins the conversation a send started.
func variantContact(ctx context.Context, q repo.Queries, s repo.Scope, phone string) (*repo.Contact, error) {
	ct, err := q.ContactByWaID(ctx, s, strings.TrimPrefix(phone, "+"))
	if !errors.Is(err, repo.ErrNotFound) {
		return ct, err
	}
	for _, v := range contact.PhoneVariants(phone) {
		ct, err := q.ContactBy(ctx, s, "phone", v)
		if !errors.Is(err, repo.ErrNotFound) {
			return ct, err
		}
	}
	return nil, repo.ErrNotFound
}
