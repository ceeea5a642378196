package send

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// waContactsMax is the number of cards a WhatsApp contacts message takes
// (ContactsMessage.contacts maxItems in facebook/openapi
// business-messaging-api_v23.0.yaml).
const waContactsMax = 5

// contactsFit checks contact cards: WhatsApp only, a message of their own,
// at most 5, each with a formatted name and at least one other part of
// the name (https://developers.facebook.com/docs/whatsapp/cloud-api/messages/contacts-messages),
// phones, emails and urls not empty, a birthday as YYYY-MM-DD.
func contactsFit(req *sendRequest) error {
	in := req.in
	switch {
	case req.channel != "whatsapp":
		return apierr.New(apierr.InvalidRequest, "contacts applies to WhatsApp messages only, not %s.", req.channel)
	case req.text != nil || in.Template != nil || len(in.Attachments) > 0 || in.Location != nil || in.Interactive != nil || in.Reaction != nil:
		return apierr.New(apierr.InvalidRequest, "Contact cards are a message of their own: give no text, template, attachments, location, interactive or reaction with them.")
	}
	if err := countFit("contacts", len(in.Contacts), waContactsMax, "WhatsApp", "card", "contact cards"); err != nil {
		return err
	}
	for i, c := range in.Contacts {
		if err := cardFit(fmt.Sprintf("contacts[%d]", i), c); err != nil {
			return err
		}
	}
	return nil
}

// cardFit checks one card.
func cardFit(field string, c *model.ContactCardInput) error {
	if c == nil || c.Name.FormattedName == "" {
		return apierr.New(apierr.InvalidRequest, "%s.name.formatted_name is required.", field)
	}
	n := c.Name
	if n.FirstName == "" && n.LastName == "" && n.MiddleName == "" && n.Suffix == "" && n.Prefix == "" {
		return apierr.New(apierr.InvalidRequest, "%s.name needs first_name, last_name, middle_name, suffix or prefix besides formatted_name.", field)
	}
	for j, p := range c.Phones {
		if p == nil || p.Phone == "" {
			return apierr.New(apierr.InvalidRequest, "%s.phones[%d].phone is required.", field, j)
		}
	}
	for j, e := range c.Emails {
		if e == nil || e.Email == "" {
			return apierr.New(apierr.InvalidRequest, "%s.emails[%d].email is required.", field, j)
		}
	}
	for j, u := range c.Urls {
		if u == nil || u.URL == "" {
			return apierr.New(apierr.InvalidRequest, "%s.urls[%d].url is required.", field, j)
		}
	}
	if c.Birthday != "" {
		if _, err := time.Parse(time.DateOnly, c.Birthday); err != nil {
			return apierr.New(apierr.InvalidRequest, "%s.birthday must be a date, YYYY-MM-DD.", field)
		}
	}
	return nil
}

// cardsOut are the cards as objects of their set fields (the adapter's
// form: WhatsApp's contact object has the same field names).
func cardsOut(cards []*model.ContactCardInput) ([]map[string]any, error) {
	out := make([]map[string]any, len(cards))
	for i, c := range cards {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		out[i], _ = pruned(v).(map[string]any)
	}
	return out, nil
}

// pruned drops nulls, empty strings, empty lists and empty objects.
func pruned(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if p := pruned(e); p == nil {
				delete(x, k)
			} else {
				x[k] = p
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		var keep []any
		for _, e := range x {
			if p := pruned(e); p != nil {
				keep = append(keep, p)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		return keep
	case string:
		if x == "" {
			return nil
		}
	}
	return v
}
