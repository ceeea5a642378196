package meta

import (
	"encoding/json"
	"time"
)

// InstagramRoute is the Instagram account an event belongs to: entry[].id.
type InstagramRoute struct {
	AccountID string
}

// Channel is "instagram".
func (InstagramRoute) Channel() string { return "instagram" }

// RouteID is the account's id (entry[].id).
func (r InstagramRoute) RouteID() string { return r.AccountID }

// InstagramMessage is a DM (messaging[].message): from the customer, or an
// echo (IsEcho) of one the account sent, where Sender is the account and
// Recipient the customer. IsDeleted: the customer unsent message MID.
type InstagramMessage struct {
	InstagramRoute
	SenderID    string
	RecipientID string
	Timestamp   time.Time
	MID         string
	Text        string
	Attachments []InstagramAttachment
	IsEcho      bool
	IsDeleted   bool
	// IsUnsupported: a message type the API does not deliver.
	IsUnsupported bool
	// ReplyToMID is the message this one answers, if any.
	ReplyToMID string
}

// CustomerID is the Instagram-scoped id of the customer: the sender, or the
// recipient of an echo.
func (m *InstagramMessage) CustomerID() string {
	if m.IsEcho {
		return m.RecipientID
	}
	return m.SenderID
}

// InstagramAttachment is one attachment of a DM: Type is image, video,
// audio, file, share, story_mention, ig_reel, ...; URL its CDN link.
type InstagramAttachment struct {
	Type string
	URL  string
}

// InstagramRead is the customer having seen the conversation up to MID.
type InstagramRead struct {
	InstagramRoute
	SenderID  string
	MID       string
	Timestamp time.Time
}

// InstagramReaction is a reaction ("react") or its removal ("unreact") on
// message MID.
type InstagramReaction struct {
	InstagramRoute
	SenderID  string
	MID       string
	Action    string
	Emoji     string
	Timestamp time.Time
}

// InstagramComment is a comment on a post (Field "comments") or a live
// video (Field "live_comments"). ParentID is set on a reply to a comment.
type InstagramComment struct {
	InstagramRoute
	Field            string
	ID               string
	Text             string
	ParentID         string
	FromID           string
	FromUsername     string
	MediaID          string
	MediaProductType string
	AdID             string
	AdTitle          string
	// Time is the entry's time (comments carry none of their own).
	Time time.Time
}

type igMessaging struct {
	Sender struct {
		ID ID `json:"id"`
	} `json:"sender"`
	Recipient struct {
		ID ID `json:"id"`
	} `json:"recipient"`
	Timestamp Time `json:"timestamp"`
	Message   *struct {
		MID         string `json:"mid"`
		Text        string `json:"text"`
		Attachments []struct {
			Type    string `json:"type"`
			Payload struct {
				URL string `json:"url"`
			} `json:"payload"`
		} `json:"attachments"`
		IsEcho        bool `json:"is_echo"`
		IsDeleted     bool `json:"is_deleted"`
		IsUnsupported bool `json:"is_unsupported"`
		ReplyTo       *struct {
			MID string `json:"mid"`
		} `json:"reply_to"`
	} `json:"message"`
	Read *struct {
		MID string `json:"mid"`
	} `json:"read"`
	Reaction *struct {
		MID      string `json:"mid"`
		Action   string `json:"action"`
		Reaction string `json:"reaction"`
		Emoji    string `json:"emoji"`
	} `json:"reaction"`
}

type igComment struct {
	ID       ID     `json:"id"`
	Text     string `json:"text"`
	ParentID ID     `json:"parent_id"`
	From     struct {
		ID       ID     `json:"id"`
		Username string `json:"username"`
	} `json:"from"`
	Media struct {
		ID               ID     `json:"id"`
		MediaProductType string `json:"media_product_type"`
		AdID             ID     `json:"ad_id"`
		AdTitle          string `json:"ad_title"`
	} `json:"media"`
}

// instagramEntry reads messaging[] (DMs, echoes, reads, reactions) and
// changes[] (comments, live_comments, and DMs in the changes form that
// Meta's dashboard test sends: field "messages" with a messaging item as
// value).
func (p *Payload) instagramEntry(raw json.RawMessage) error {
	var entry struct {
		ID        ID            `json:"id"`
		Time      Time          `json:"time"`
		Messaging []igMessaging `json:"messaging"`
		Changes   []change      `json:"changes"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	route := InstagramRoute{AccountID: string(entry.ID)}
	for i := range entry.Messaging {
		p.instagramMessaging(route, &entry.Messaging[i])
	}
	for _, ch := range entry.Changes {
		switch ch.Field {
		case "comments", "live_comments":
			var c igComment
			if err := json.Unmarshal(ch.Value, &c); err != nil {
				return err
			}
			p.Events = append(p.Events, &InstagramComment{InstagramRoute: route, Field: ch.Field, ID: string(c.ID),
				Text: c.Text, ParentID: string(c.ParentID), FromID: string(c.From.ID), FromUsername: c.From.Username,
				MediaID: string(c.Media.ID), MediaProductType: c.Media.MediaProductType, AdID: string(c.Media.AdID),
				AdTitle: c.Media.AdTitle, Time: entry.Time.Time})
		case "messages", "message_echoes", "messaging_seen", "message_reactions":
			var m igMessaging
			if err := json.Unmarshal(ch.Value, &m); err != nil {
				return err
			}
			p.instagramMessaging(route, &m)
		default:
			p.Ignored = append(p.Ignored, "instagram field "+ch.Field)
		}
	}
	return nil
}

func (p *Payload) instagramMessaging(route InstagramRoute, m *igMessaging) {
	sender, recipient, at := string(m.Sender.ID), string(m.Recipient.ID), m.Timestamp.Time
	switch {
	case m.Message != nil:
		msg := m.Message
		ev := &InstagramMessage{InstagramRoute: route, SenderID: sender, RecipientID: recipient, Timestamp: at,
			MID: msg.MID, Text: msg.Text, IsEcho: msg.IsEcho, IsDeleted: msg.IsDeleted, IsUnsupported: msg.IsUnsupported}
		for _, a := range msg.Attachments {
			ev.Attachments = append(ev.Attachments, InstagramAttachment{Type: a.Type, URL: a.Payload.URL})
		}
		if msg.ReplyTo != nil {
			ev.ReplyToMID = msg.ReplyTo.MID
		}
		p.Events = append(p.Events, ev)
	case m.Read != nil:
		p.Events = append(p.Events, &InstagramRead{InstagramRoute: route, SenderID: sender, MID: m.Read.MID, Timestamp: at})
	case m.Reaction != nil:
		emoji := m.Reaction.Emoji
		if emoji == "" {
			emoji = m.Reaction.Reaction
		}
		p.Events = append(p.Events, &InstagramReaction{InstagramRoute: route, SenderID: sender, MID: m.Reaction.MID,
			Action: m.Reaction.Action, Emoji: emoji, Timestamp: at})
	default:
		p.Ignored = append(p.Ignored, "instagram messaging event of another kind")
	}
}
