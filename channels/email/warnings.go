package email

import (
	"slices"
	"strings"

	"github.com/jhillyerd/enmime/v2"
)

// Warning is one repair made to read or show a mail (email.warnings): a
// stable code and a sentence for people.
type Warning struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Warning codes besides enmime's (warningCodes).
const (
	// WarnTextUndecodable: the text part did not decode; the HTML is shown.
	WarnTextUndecodable = "text_undecodable"
	// WarnCharsetFromHTML: the HTML part's charset came from its <meta>.
	WarnCharsetFromHTML = "charset_from_html"
	// What could not be taken as it came (Notes, shown with the text too):
	// the mail kept as raw text, parts or attachments past their limits,
	// an unknown charset, a body truncated, bytes that are not UTF-8
	// replaced, a fault of the parser.
	WarnRawText          = "raw_text"
	WarnPartsLimit       = "parts_limit"
	WarnAttachmentsLimit = "attachments_limit"
	WarnUnknownCharset   = "unknown_charset"
	WarnTruncated        = "truncated"
	WarnNotUTF8          = "not_utf8"
	WarnParserFailed     = "parser_failed"
	// WarnHTMLAsText: the HTML nests too deep to read; html is its text.
	WarnHTMLAsText = "html_as_text"
	// WarnRemoteImages: remote images were not loaded in html
	// (MSGSVC_EMAIL_REMOTE_IMAGES=block); a UI may offer to show them.
	WarnRemoteImages = "remote_images_blocked"
)

// warningCodes name enmime's errors and warnings.
var warningCodes = map[string]string{
	enmime.ErrorMalformedBase64:    "malformed_base64",
	enmime.ErrorMalformedHeader:    "malformed_header",
	enmime.ErrorMissingBoundary:    "missing_boundary",
	enmime.ErrorMissingContentType: "missing_content_type",
	enmime.ErrorCharsetConversion:  "charset_conversion",
	enmime.ErrorContentEncoding:    "unknown_transfer_encoding",
	enmime.ErrorCharsetDeclaration: "charset_mismatch",
	enmime.ErrorMissingRecipient:   "no_recipients",
	enmime.ErrorMalformedChildPart: "malformed_part",
	enmime.ErrorDataHasBoundary:    "boundary_in_data",
}

// warningCode is the code of an enmime error name; a name it does not
// know becomes its words in snake case.
func warningCode(name string) string {
	if c, ok := warningCodes[name]; ok {
		return c
	}
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	if len(f) == 0 {
		return "repaired"
	}
	return strings.Join(f, "_")
}

// AddWarning appends w unless an equal one is there or the list holds
// MaxWarnings; a detail past 300 bytes is cut.
func AddWarning(list []Warning, w Warning) []Warning {
	if len(w.Detail) > 300 {
		w.Detail = strings.ToValidUTF8(w.Detail[:300], "") + "…"
	}
	if len(list) >= MaxWarnings || slices.Contains(list, w) {
		return list
	}
	return append(list, w)
}
