package send

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
)

// mediaKind is what a provider takes of one kind of media: its MIME types
// (nil: any) and its largest size.
type mediaKind struct {
	types []string
	max   int
}

// waMedia is WhatsApp's supported media
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types):
// audio AAC, AMR, MP3, MP4 audio and OGG (Opus); images JPEG and PNG;
// video MP4 and 3GPP; any document; stickers WebP, 100 KB static. Each
// kind's largest size is the adapter's (channels.WhatsAppMaxSize). A media
// template header takes a PDF as its document.
var waMedia = map[string]mediaKind{
	"audio":    {[]string{"audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"}, channels.WhatsAppMaxSize("audio")},
	"image":    {[]string{"image/jpeg", "image/png"}, channels.WhatsAppMaxSize("image")},
	"video":    {[]string{"video/mp4", "video/3gpp"}, channels.WhatsAppMaxSize("video")},
	"document": {nil, channels.WhatsAppMaxSize("document")},
	"sticker":  {[]string{"image/webp"}, channels.WhatsAppMaxSize("sticker")},
}

// waStaticStickerMax is the size of a sticker without animation.
const waStaticStickerMax = 100 << 10

// igMedia is what Instagram's Send API takes
// (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api#supported-media):
// images PNG, JPEG and GIF up to 8 MB; video MP4, OGG, AVI, MOV and WebM
// and audio AAC, M4A, WAV and MP4 up to 25 MB.
var igMedia = map[string]mediaKind{
	"image": {[]string{"image/png", "image/jpeg", "image/gif"}, 8 << 20},
	"video": {[]string{"video/mp4", "video/ogg", "video/avi", "video/x-msvideo", "video/quicktime", "video/webm"}, 25 << 20},
	"audio": {[]string{"audio/aac", "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"}, 25 << 20},
}

// baseType is a MIME type without parameters, lower case.
func baseType(contentType string) string {
	return strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
}

// kindFits checks one file against a kind's types and size: 422
// limit_exceeded naming the field.
func kindFits(field, provider, kind string, k mediaKind, contentType string, size int) error {
	ct := baseType(contentType)
	if k.types != nil && !slices.Contains(k.types, ct) {
		return over(field, "%s takes %s media of the types %s, not %s.", provider, kind, strings.Join(k.types, ", "), ct)
	}
	if size > k.max {
		return over(field, "%s takes %s media of at most %s; this file has %d bytes.", provider, kind, sizeText(k.max), size)
	}
	return nil
}

// sizeText is a limit in MB or KB.
func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// mediaFits checks a template header's media: the header's kind, a PDF
// for a document.
func mediaFits(field, kind, contentType string, size int) error {
	k := waMedia[kind]
	if kind == "document" {
		k.types = []string{"application/pdf"}
	}
	return kindFits(field, "A WhatsApp template header", kind, k, contentType, size)
}

// attachmentFits checks an attachment against its channel's media limits:
// on WhatsApp the kind it is sent as (audio that WhatsApp does not play is
// refused, a sticker without animation is at most 100 KB when its bytes
// are at hand); on Instagram images, video and audio of the listed types.
func attachmentFits(channel, field, contentType string, size int, content []byte) error {
	ct := baseType(contentType)
	switch channel {
	case "whatsapp":
		kind := channels.WhatsAppMediaKind(ct, size)
		if kind == "sticker" && content != nil && size > waStaticStickerMax && !animatedWebP(content) {
			return over(field, "WhatsApp takes a static sticker of at most 100 KB; this file has %d bytes.", size)
		}
		return kindFits(field, "WhatsApp", kind, waMedia[kind], ct, size)
	case "instagram":
		kind := ct[:max(strings.Index(ct, "/"), 0)]
		if k, ok := igMedia[kind]; ok {
			return kindFits(field, "Instagram", kind, k, ct, size)
		}
	}
	return nil
}

// animatedWebP says whether a WebP file has the animation flag of its
// extended header (VP8X).
func animatedWebP(b []byte) bool {
	return len(b) > 20 && bytes.Equal(b[12:16], []byte("VP8X")) && b[20]&0x02 != 0
}
