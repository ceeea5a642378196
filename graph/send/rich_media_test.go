package send

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
)

// Media limits as Meta documents them: WhatsApp
// https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types,
// Instagram https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api#supported-media.
func TestAttachmentFits(t *testing.T) {
	animated := append([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x02"), make([]byte, 200<<10)...)
	static := append([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00"), make([]byte, 200<<10)...)
	cases := []struct {
		channel, ctype string
		size           int
		content        []byte
		refused        bool
	}{
		{"whatsapp", "image/jpeg", 5 << 20, nil, false},
		{"whatsapp", "image/png", 5<<20 + 1, nil, true},
		{"whatsapp", "audio/ogg; codecs=opus", 1 << 20, nil, false},
		{"whatsapp", "audio/mpeg", 1 << 20, nil, false},
		{"whatsapp", "audio/wav", 1 << 20, nil, true},
		{"whatsapp", "video/mp4", 16 << 20, nil, false},
		{"whatsapp", "application/pdf", 9 << 20, nil, false},
		{"whatsapp", "image/webp", len(animated), animated, false},
		{"whatsapp", "image/webp", len(static), static, true},
		{"whatsapp", "image/webp", 90 << 10, nil, false},
		{"instagram", "image/gif", 1 << 20, nil, false},
		{"instagram", "image/webp", 1 << 20, nil, true},
		{"instagram", "image/png", 8<<20 + 1, nil, true},
		{"instagram", "video/quicktime", 1 << 20, nil, false},
		{"instagram", "video/x-matroska", 1 << 20, nil, true},
		{"instagram", "audio/wav", 1 << 20, nil, false},
		{"instagram", "audio/ogg", 1 << 20, nil, true},
		{"email", "application/zip", 1 << 20, nil, false},
	}
	for _, c := range cases {
		err := attachmentFits(c.channel, "attachments[0]", c.ctype, c.size, c.content)
		if (err != nil) != c.refused {
			t.Errorf("%s %s %d bytes: %v, refused want %v", c.channel, c.ctype, c.size, err, c.refused)
			continue
		}
		if e, ok := apierr.As(err); err != nil && (!ok || e.Code != apierr.LimitExceeded || !strings.HasPrefix(e.Message, "attachments[0]:")) {
			t.Errorf("%s %s: %v does not name the field as limit_exceeded", c.channel, c.ctype, err)
		}
	}
	if err := mediaFits("template.header.document", "document", "application/msword", 1<<10); err == nil {
		t.Error("a Word file was taken as a template's document header (PDF only)")
	}
}

func TestGenericFit(t *testing.T) {
	s := func(v string) *string { return &v }
	card := func() *model.ElementInput {
		return &model.ElementInput{Title: s("Welcome!"), Subtitle: s("We have the right hat for everyone."),
			Buttons: []*model.ElementButtonInput{{Type: s("postback"), Title: s("Start Chatting"), Payload: s("P")}}}
	}
	if err := genericFit(&model.InteractiveInput{Elements: []*model.ElementInput{card()}}); err != nil {
		t.Fatal(err)
	}
	eleven := make([]*model.ElementInput, 11)
	for i := range eleven {
		eleven[i] = card()
	}
	long, noPayload, badURL := card(), card(), card()
	long.Title = s(strings.Repeat("t", 81))
	noPayload.Buttons[0].Payload = nil
	badURL.Buttons[0] = &model.ElementButtonInput{Type: s("web_url"), Title: s("Go"), URL: s("ftp://x")}
	for name, c := range map[string]struct {
		els  []*model.ElementInput
		code apierr.Code
	}{
		"eleven": {eleven, apierr.LimitExceeded}, "long title": {[]*model.ElementInput{long}, apierr.LimitExceeded},
		"postback without payload": {[]*model.ElementInput{noPayload}, apierr.InvalidRequest},
		"web_url not http":         {[]*model.ElementInput{badURL}, apierr.InvalidRequest},
	} {
		t.Run(name, func(t *testing.T) {
			apierrtest.Want(t, genericFit(&model.InteractiveInput{Elements: c.els}), c.code, "")
		})
	}
}
