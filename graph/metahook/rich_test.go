package metahook

import (
	"encoding/json"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
)

func TestRichOfKinds(t *testing.T) {
	cases := []struct {
		m    meta.WhatsAppMessage
		want string
		ok   func(t *testing.T, typ string, m meta.WhatsAppMessage)
	}{
		{m: meta.WhatsAppMessage{ID: "w1", Type: "reaction", Reaction: &meta.WhatsAppReaction{MessageID: "w0", Emoji: ""}}, want: "reaction"},
		{m: meta.WhatsAppMessage{ID: "w2", Type: "button", Interactive: &meta.WhatsAppChoice{Kind: "button", Payload: "P"}}, want: "interactive"},
		{m: meta.WhatsAppMessage{ID: "w3", Type: "request_welcome"}, want: "system"},
		{m: meta.WhatsAppMessage{ID: "w4", Type: "poll"}, want: "unsupported"},
		{m: meta.WhatsAppMessage{ID: "w5", Type: "location"}, want: "unsupported"}, // no location object: not a blank location
		{m: meta.WhatsAppMessage{ID: "w6", Type: "unsupported", Errors: []meta.WhatsAppError{{Code: 131051, Title: "Message type unknown"}}}, want: "unsupported"},
		{m: meta.WhatsAppMessage{ID: "w7", Type: "text", Context: &meta.WhatsAppContext{FrequentlyForwarded: true}}, want: "text"},
		{m: meta.WhatsAppMessage{ID: "w8", Type: "contacts", Contacts: []byte(`[null]`)}, want: "unsupported"}, // no card: not a blank one
	}
	for _, c := range cases {
		typ, rich := richOf(&c.m)
		if typ != c.want || rich.ProviderMessageID == nil || *rich.ProviderMessageID != c.m.ID {
			t.Errorf("%s: %s %+v, want %s", c.m.ID, typ, rich, c.want)
		}
		switch c.m.ID {
		case "w1":
			if rich.Reaction == nil || rich.Reaction.Emoji != "" || rich.Reaction.ProviderMessageID != "w0" {
				t.Errorf("reaction %+v", rich.Reaction)
			}
		case "w2":
			if rich.Interactive == nil || rich.Interactive.Kind != "button" || rich.Interactive.Payload != "P" {
				t.Errorf("button %+v", rich.Interactive)
			}
		case "w3":
			if rich.System == nil || rich.System.Kind != "request_welcome" {
				t.Errorf("welcome %+v", rich.System)
			}
		case "w4":
			if rich.Unsupported == nil || rich.Unsupported.Code != "not_modelled" {
				t.Errorf("unknown %+v", rich.Unsupported)
			}
		case "w6":
			if rich.Unsupported == nil || rich.Unsupported.Code != "131051" || rich.Unsupported.Title != "Message type unknown" {
				t.Errorf("unsupported %+v", rich.Unsupported)
			}
		case "w7":
			if !rich.Forwarded || rich.ReplyTo != nil {
				t.Errorf("forwarded %+v", rich)
			}
		}
	}
}

// A NUL in a payload's strings (which Postgres stores in no text) is read
// as U+FFFD; a backslash written before "u0000" stays text.
func TestWithoutNUL(t *testing.T) {
	for raw, want := range map[string]string{
		`{"t":"a\u0000b"}`:     "a\ufffdb",
		`{"t":"a\\u0000b"}`:    `a\u0000b`,
		`{"t":"\\\u0000"}`:     "\\\ufffd",
		`{"t":"\u0000\u00e9"}`: "\ufffd\u00e9",
		`{"t":"plain"}`:        "plain",
	} {
		var v struct{ T string }
		if err := json.Unmarshal(withoutNUL([]byte(raw)), &v); err != nil || v.T != want {
			t.Errorf("%s: %q (%v); want %q", raw, v.T, err, want)
		}
	}
}
