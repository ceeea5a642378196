package channels

import (
	"regexp"
	"strings"
)

// WhatsApp's address forms and media limits are data, not calls: the
// adapter sends by them and the send rules check by them, test-key sends
// included (which never reach an adapter), so both read them here.

// whatsAppUserID is the form of a business-scoped user id (BSUID): a
// two-letter country code, a period and up to 128 letters and digits, or a
// parent BSUID with ENT between them ("US.13491208655302741918",
// "US.ENT.11815799212886844830";
// https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
var whatsAppUserID = regexp.MustCompile(`^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$`)

// IsWhatsAppUserID says whether s is a WhatsApp business-scoped user id
// rather than a phone number.
func IsWhatsAppUserID(s string) bool { return whatsAppUserID.MatchString(s) }

// Digits is a phone number as WhatsApp takes it: digits only, no +.
func Digits(phone string) string {
	var b strings.Builder
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WhatsAppMediaKind is the WhatsApp media type a file is sent as: image
// (JPEG, PNG), sticker (WebP up to 500 KB), video (MP4, 3GPP), audio, else
// document.
func WhatsAppMediaKind(contentType string, size int) string {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	switch {
	case ct == "image/jpeg" || ct == "image/png":
		return "image"
	case ct == "image/webp" && size <= whatsAppMediaMax["sticker"]:
		return "sticker"
	case ct == "video/mp4" || ct == "video/3gpp":
		return "video"
	case strings.HasPrefix(ct, "audio/"):
		return "audio"
	}
	return "document"
}

// whatsAppMediaMax is WhatsApp's limit of each media type
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types).
var whatsAppMediaMax = map[string]int{"image": 5 << 20, "video": 16 << 20, "audio": 16 << 20, "document": 100 << 20, "sticker": 500 << 10}

// WhatsAppMaxSize is the largest file WhatsApp takes as media of kind
// (WhatsAppMediaKind).
func WhatsAppMaxSize(kind string) int { return whatsAppMediaMax[kind] }
