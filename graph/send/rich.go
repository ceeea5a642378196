package send

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Limits Meta documents for what a send carries (docs/whatsapp.md,
// docs/instagram.md), refused before any provider call.
const (
	waTextMax        = 4096 // text.body
	waBodyMax        = 1024 // interactive body.text
	waHeaderMax      = 60   // interactive header.text, footer.text
	waButtonsMax     = 3    // reply buttons
	waButtonTitleMax = 20   // reply button title, list button, cta display_text
	waButtonIDMax    = 256  // reply button id
	waRowsMax        = 10   // rows of all sections of a list
	waSectionsMax    = 10
	waRowTitleMax    = 24 // row and section title
	waRowDescMax     = 72
	waRowIDMax       = 200
	igTextBytesMax   = 1000 // an Instagram text, in UTF-8 bytes
	igQuickMax       = 13
	igQuickTitleMax  = 20
)

// over is 422 limit_exceeded naming the field.
func over(field string, format string, args ...any) error {
	return apierr.New(apierr.LimitExceeded, "%s: "+format, append([]any{field}, args...)...)
}

// chars counts characters as Meta does (code points).
func chars(s string) int { return utf8.RuneCountInString(s) }

// countFit checks how many items a list field has: at least one (one
// names the item, invalid_request), at most most of the provider's
// (many names them, 422 limit_exceeded).
func countFit(field string, n, most int, provider, one, many string) error {
	if n == 0 {
		return apierr.New(apierr.InvalidRequest, "%s needs %s.", field, strings.TrimSpace("at least one "+one))
	}
	if n > most {
		return over(field, "%s takes at most %d %s; this has %d.", provider, most, many, n)
	}
	return nil
}

// richFit checks the rich fields of a send for its channel: which channel
// takes which field (invalid_request), and Meta's documented limits (422
// limit_exceeded, the field named). conv is nil for a new conversation.
func richFit(req *sendRequest, conv *repo.Conversation) error {
	in, ch := req.in, req.channel
	if (in.ReplyTo != nil || in.Reaction != nil) && conv == nil {
		return apierr.New(apierr.InvalidRequest, "reply_to and reaction name a message of the conversation: give conversation_id.")
	}
	if ch != "whatsapp" && ch != "instagram" && (in.ReplyTo != nil || in.Reaction != nil || in.Location != nil || in.Interactive != nil) {
		return apierr.New(apierr.InvalidRequest, "reply_to, reaction, location and interactive apply to WhatsApp and Instagram messages only, not %s.", ch)
	}
	if r := in.Reaction; r != nil {
		switch {
		case r.MessageID == nil || r.Emoji == nil:
			return apierr.New(apierr.InvalidRequest, "reaction needs message_id and emoji (\"\" removes it).")
		case req.text != nil || in.Template != nil || len(in.Attachments) > 0 || in.Location != nil || in.Interactive != nil || in.ReplyTo != nil:
			return apierr.New(apierr.InvalidRequest, "A reaction is a message of its own: give no text, template, attachments, location, interactive or reply_to with it.")
		case chars(*r.Emoji) > 8:
			return over("reaction.emoji", "give one emoji.")
		case ch == "instagram" && *r.Emoji != "" && *r.Emoji != "❤️" && *r.Emoji != "❤" && *r.Emoji != "love":
			return over("reaction.emoji", "Instagram reactions are the heart (❤️) only.")
		}
	}
	if in.ReplyTo != nil && in.ReplyTo.MessageID == nil {
		return apierr.New(apierr.InvalidRequest, "reply_to needs message_id.")
	}
	if l := in.Location; l != nil {
		switch {
		case ch != "whatsapp":
			return apierr.New(apierr.InvalidRequest, "location applies to WhatsApp messages only, not %s.", ch)
		case l.Latitude == nil || l.Longitude == nil:
			return apierr.New(apierr.InvalidRequest, "location needs latitude and longitude.")
		case *l.Latitude < -90 || *l.Latitude > 90:
			return over("location.latitude", "must be between -90 and 90.")
		case *l.Longitude < -180 || *l.Longitude > 180:
			return over("location.longitude", "must be between -180 and 180.")
		case req.text != nil || in.Template != nil || len(in.Attachments) > 0 || in.Interactive != nil:
			return apierr.New(apierr.InvalidRequest, "A location is a message of its own: give no text, template, attachments or interactive with it.")
		}
	}
	if req.text != nil {
		switch {
		case ch == "whatsapp" && in.Interactive == nil && chars(*req.text) > waTextMax:
			return over("text", "WhatsApp takes at most %d characters; this has %d.", waTextMax, chars(*req.text))
		case ch == "instagram" && len(*req.text) > igTextBytesMax:
			return over("text", "Instagram takes at most %d bytes of UTF-8; this has %d.", igTextBytesMax, len(*req.text))
		}
	}
	if in.Contacts != nil {
		if err := contactsFit(req); err != nil {
			return err
		}
	}
	if in.Interactive != nil {
		return interactiveFit(req)
	}
	return nil
}

// interactiveFit checks choices against Meta's limits.
func interactiveFit(req *sendRequest) error {
	in, it, ch := req.in, req.in.Interactive, req.channel
	kind := ""
	if it.Type != nil {
		kind = *it.Type
	}
	if in.Template != nil || len(in.Attachments) > 0 {
		return apierr.New(apierr.InvalidRequest, "interactive takes its body from text; give no template or attachments with it.")
	}
	if ch == "instagram" && kind == "generic" {
		if req.text != nil {
			return apierr.New(apierr.InvalidRequest, "A generic template carries no text; put it in the cards' titles and subtitles.")
		}
		return genericFit(it)
	}
	if req.text == nil {
		return apierr.New(apierr.TextRequired, "interactive needs text, its body.")
	}
	switch {
	case ch == "whatsapp" && (kind == "buttons" || kind == "list" || kind == "cta_url"):
		if n := chars(*req.text); n > waBodyMax {
			return over("text", "an interactive body takes at most %d characters; this has %d.", waBodyMax, n)
		}
		if chars(deref(it.Header)) > waHeaderMax {
			return over("interactive.header", "at most %d characters.", waHeaderMax)
		}
		if chars(deref(it.Footer)) > waHeaderMax {
			return over("interactive.footer", "at most %d characters.", waHeaderMax)
		}
	case ch == "instagram" && kind == "quick_replies":
	default:
		return apierr.New(apierr.InvalidRequest, "interactive.type must be buttons, list or cta_url on WhatsApp, quick_replies or generic on Instagram.")
	}
	switch kind {
	case "buttons":
		return buttonsFit(it)
	case "list":
		return listFit(it)
	case "cta_url":
		return ctaFit(it)
	case "quick_replies":
		return quickRepliesFit(it)
	}
	return nil
}

// buttonsFit checks reply buttons against Meta's limits.
func buttonsFit(it *model.InteractiveInput) error {
	if err := countFit("interactive.buttons", len(it.Buttons), waButtonsMax, "WhatsApp", "button", "reply buttons"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, b := range it.Buttons {
		field := fmt.Sprintf("interactive.buttons[%d]", i)
		switch {
		case b == nil || nonBlank(b.ID) == nil || nonBlank(b.Title) == nil:
			return apierr.New(apierr.InvalidRequest, "%s needs id and title.", field)
		case chars(*b.Title) > waButtonTitleMax:
			return over(field+".title", "at most %d characters; %q has %d.", waButtonTitleMax, *b.Title, chars(*b.Title))
		case chars(*b.ID) > waButtonIDMax:
			return over(field+".id", "at most %d characters.", waButtonIDMax)
		case seen[*b.ID]:
			return apierr.New(apierr.InvalidRequest, "%s.id repeats %q; button ids must differ.", field, *b.ID)
		}
		seen[*b.ID] = true
	}
	return nil
}

// listFit checks a list against Meta's limits.
func listFit(it *model.InteractiveInput) error {
	if nonBlank(it.Button) == nil {
		return apierr.New(apierr.InvalidRequest, "interactive.button (the list's button text) is required.")
	}
	if chars(*it.Button) > waButtonTitleMax {
		return over("interactive.button", "at most %d characters.", waButtonTitleMax)
	}
	if len(it.Sections) == 0 {
		return apierr.New(apierr.InvalidRequest, "interactive.sections needs at least one section.")
	}
	if len(it.Sections) > waSectionsMax {
		return over("interactive.sections", "at most %d sections.", waSectionsMax)
	}
	rows := 0
	for i, sec := range it.Sections {
		field := fmt.Sprintf("interactive.sections[%d]", i)
		if sec == nil || len(sec.Rows) == 0 {
			return apierr.New(apierr.InvalidRequest, "%s needs rows.", field)
		}
		if len(it.Sections) > 1 && nonBlank(sec.Title) == nil {
			return apierr.New(apierr.InvalidRequest, "%s.title is required when a list has several sections.", field)
		}
		if chars(deref(sec.Title)) > waRowTitleMax {
			return over(field+".title", "at most %d characters.", waRowTitleMax)
		}
		for j, row := range sec.Rows {
			rf := fmt.Sprintf("%s.rows[%d]", field, j)
			switch {
			case row == nil || nonBlank(row.ID) == nil || nonBlank(row.Title) == nil:
				return apierr.New(apierr.InvalidRequest, "%s needs id and title.", rf)
			case chars(*row.Title) > waRowTitleMax:
				return over(rf+".title", "at most %d characters; %q has %d.", waRowTitleMax, *row.Title, chars(*row.Title))
			case chars(deref(row.Description)) > waRowDescMax:
				return over(rf+".description", "at most %d characters.", waRowDescMax)
			case chars(*row.ID) > waRowIDMax:
				return over(rf+".id", "at most %d characters.", waRowIDMax)
			}
		}
		rows += len(sec.Rows)
	}
	if rows > waRowsMax {
		return over("interactive.sections", "a list takes at most %d rows in all; this has %d.", waRowsMax, rows)
	}
	return nil
}

// ctaFit checks a link button against Meta's limits.
func ctaFit(it *model.InteractiveInput) error {
	switch {
	case it.URL == nil || !isHTTP(*it.URL):
		return apierr.New(apierr.InvalidRequest, "interactive.url must be an http(s) URL.")
	case nonBlank(it.DisplayText) == nil:
		return apierr.New(apierr.InvalidRequest, "interactive.display_text is required.")
	case chars(*it.DisplayText) > waButtonTitleMax:
		return over("interactive.display_text", "at most %d characters.", waButtonTitleMax)
	}
	return nil
}

// quickRepliesFit checks Instagram quick replies against Meta's limits.
func quickRepliesFit(it *model.InteractiveInput) error {
	if err := countFit("interactive.quick_replies", len(it.QuickReplies), igQuickMax, "Instagram", "", "quick replies"); err != nil {
		return err
	}
	for i, q := range it.QuickReplies {
		field := fmt.Sprintf("interactive.quick_replies[%d]", i)
		switch {
		case q == nil || nonBlank(q.Title) == nil || nonBlank(q.Payload) == nil:
			return apierr.New(apierr.InvalidRequest, "%s needs title and payload.", field)
		case chars(*q.Title) > igQuickTitleMax:
			return over(field+".title", "at most %d characters; %q has %d.", igQuickTitleMax, *q.Title, chars(*q.Title))
		}
	}
	return nil
}
