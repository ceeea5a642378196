package meta

import (
	"encoding/json"
	"sort"
	"strings"
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
	// ReplyToMID is the message this one answers, if any; ReplyToStory
	// the story it answers.
	ReplyToMID   string
	ReplyToStory *InstagramStory
	// QuickReplyPayload is the payload of the quick reply tapped.
	QuickReplyPayload string
	// Referral is the ad or ig.me link the message came from.
	Referral *InstagramReferralData
}

// InstagramStory is a story: its id and CDN URL.
type InstagramStory struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// InstagramReferralData is the attribution of a DM, a postback or a
// referral event: an ad (AdID, AdsContextData) or an ig.me link (Ref).
type InstagramReferralData struct {
	Ref            string `json:"ref"`
	AdID           ID     `json:"ad_id"`
	Source         string `json:"source"`
	Type           string `json:"type"`
	AdsContextData *struct {
		AdTitle  string `json:"ad_title"`
		PhotoURL string `json:"photo_url"`
		VideoURL string `json:"video_url"`
	} `json:"ads_context_data"`
}

// InstagramPostback is the customer tapping a postback button or an ice
// breaker (often their first message).
type InstagramPostback struct {
	InstagramRoute
	SenderID  string
	Timestamp time.Time
	MID       string
	Title     string
	Payload   string
	Referral  *InstagramReferralData
}

// InstagramReferral is the customer opening the conversation from an ad
// or an ig.me link, with no message of their own.
type InstagramReferral struct {
	InstagramRoute
	SenderID  string
	Timestamp time.Time
	Referral  InstagramReferralData
}

// InstagramEdit is the customer editing message MID: Text is its new text.
type InstagramEdit struct {
	InstagramRoute
	SenderID  string
	Timestamp time.Time
	MID       string
	Text      string
	NumEdit   int
}

// InstagramOther is a messaging event of a kind msgsvc does not model
// (Kind names its field), kept as an unsupported message.
type InstagramOther struct {
	InstagramRoute
	SenderID  string
	Timestamp time.Time
	Kind      string
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
	// Title and ID are a shared reel's title and reel_video_id.
	Title string
	ID    string
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
				URL         string `json:"url"`
				Title       string `json:"title"`
				ReelVideoID ID     `json:"reel_video_id"`
			} `json:"payload"`
		} `json:"attachments"`
		IsEcho        bool `json:"is_echo"`
		IsDeleted     bool `json:"is_deleted"`
		IsUnsupported bool `json:"is_unsupported"`
		ReplyTo       *struct {
			MID   string          `json:"mid"`
			Story *InstagramStory `json:"story"`
		} `json:"reply_to"`
		QuickReply *struct {
			Payload string `json:"payload"`
		} `json:"quick_reply"`
		Referral *InstagramReferralData `json:"referral"`
	} `json:"message"`
	Postback *struct {
		MID      string                 `json:"mid"`
		Title    string                 `json:"title"`
		Payload  string                 `json:"payload"`
		Referral *InstagramReferralData `json:"referral"`
	} `json:"postback"`
	Referral    *InstagramReferralData `json:"referral"`
	MessageEdit *struct {
		MID     string `json:"mid"`
		Text    string `json:"text"`
		NumEdit int    `json:"num_edit"`
	} `json:"message_edit"`
	// kind is the field that names an event of another kind.
	kind string
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
		Standby   []igMessaging `json:"standby"`
		Changes   []change      `json:"changes"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	route := InstagramRoute{AccountID: string(entry.ID)}
	// standby: events of a thread another app of the account controls;
	// they are the customer's messages all the same.
	for _, list := range [][]igMessaging{entry.Messaging, entry.Standby} {
		for i := range list {
			p.instagramMessaging(route, &list[i])
		}
	}
	for _, ch := range entry.Changes {
		switch ch.Field {
		case "comments", "live_comments":
			var c igComment
			if err := json.Unmarshal(ch.Value, &c); err != nil {
				return err
			}
			field := ch.Field
			if c.Media.MediaProductType == "LIVE" {
				// A comment on a live video, whichever field carried it.
				field = "live_comments"
			}
			p.Events = append(p.Events, &InstagramComment{InstagramRoute: route, Field: field, ID: string(c.ID),
				Text: c.Text, ParentID: string(c.ParentID), FromID: string(c.From.ID), FromUsername: c.From.Username,
				MediaID: string(c.Media.ID), MediaProductType: c.Media.MediaProductType, AdID: string(c.Media.AdID),
				AdTitle: c.Media.AdTitle, Time: entry.Time.Time})
		case "messages", "message_echoes", "messaging_seen", "message_reactions", "messaging_postbacks",
			"messaging_referral", "message_edit", "standby":
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
		for i, a := range msg.Attachments {
			ev.Attachments[i].Title, ev.Attachments[i].ID = a.Payload.Title, string(a.Payload.ReelVideoID)
		}
		if msg.ReplyTo != nil {
			ev.ReplyToMID, ev.ReplyToStory = msg.ReplyTo.MID, msg.ReplyTo.Story
		}
		if msg.QuickReply != nil {
			ev.QuickReplyPayload = msg.QuickReply.Payload
		}
		ev.Referral = msg.Referral
		p.Events = append(p.Events, ev)
	case m.Postback != nil:
		pb := m.Postback
		p.Events = append(p.Events, &InstagramPostback{InstagramRoute: route, SenderID: sender, Timestamp: at, MID: pb.MID,
			Title: pb.Title, Payload: pb.Payload, Referral: pb.Referral})
	case m.Referral != nil:
		p.Events = append(p.Events, &InstagramReferral{InstagramRoute: route, SenderID: sender, Timestamp: at, Referral: *m.Referral})
	case m.MessageEdit != nil:
		e := m.MessageEdit
		p.Events = append(p.Events, &InstagramEdit{InstagramRoute: route, SenderID: sender, Timestamp: at, MID: e.MID,
			Text: e.Text, NumEdit: e.NumEdit})
	case m.Read != nil:
		p.Events = append(p.Events, &InstagramRead{InstagramRoute: route, SenderID: sender, MID: m.Read.MID, Timestamp: at})
	case m.Reaction != nil:
		emoji := m.Reaction.Emoji
		if emoji == "" {
			emoji = m.Reaction.Reaction
		}
		p.Events = append(p.Events, &InstagramReaction{InstagramRoute: route, SenderID: sender, MID: m.Reaction.MID,
			Action: m.Reaction.Action, Emoji: emoji, Timestamp: at})
	case m.kind != "" && sender != "":
		p.Events = append(p.Events, &InstagramOther{InstagramRoute: route, SenderID: sender, Timestamp: at, Kind: m.kind})
	default:
		p.Ignored = append(p.Ignored, "instagram messaging event of kind "+m.kind)
	}
}

// UnmarshalJSON reads a messaging item and names the field of a kind not
// modelled (the first key other than sender, recipient and timestamp).
func (m *igMessaging) UnmarshalJSON(b []byte) error {
	type plain igMessaging
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	kinds := []string{}
	for k := range keys {
		switch k {
		case "sender", "recipient", "timestamp":
		default:
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	m.kind = strings.Join(kinds, ",")
	return nil
}
