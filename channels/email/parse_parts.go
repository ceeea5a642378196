package email

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/jhillyerd/enmime/v2"
)

// parts walks the leaves of the MIME tree in order: the first text and
// HTML parts, the delivery status of a DSN (also kept as an attachment),
// and the rest as attachments. A text part that could not be decoded gives
// way to the HTML part and is kept as an attachment.
func (p *Parsed) parts(root *enmime.Part) {
	dropped, n := 0, 0
	alternative := strings.EqualFold(root.ContentType, "multipart/alternative")
	var brokenText *enmime.Part
	var walk func(*enmime.Part) bool
	walk = func(part *enmime.Part) bool {
		for ; part != nil; part = part.NextSibling {
			if part.FirstChild != nil {
				if !walk(part.FirstChild) {
					return false
				}
				continue
			}
			if n++; n > MaxParts {
				p.note(WarnPartsLimit, "The mail has more than %d parts; the rest were not read.", MaxParts)
				return false
			}
			ct := strings.ToLower(part.ContentType)
			if ct == "" || !strings.Contains(ct, "/") {
				ct = "application/octet-stream"
			}
			if strings.HasPrefix(ct, "multipart/") {
				// A multipart whose boundary never came holds nothing.
				continue
			}
			inline := part.Disposition != "attachment"
			what := "part"
			if part.Parent == nil {
				what = "text"
			}
			for _, e := range part.Errors {
				switch e.Name {
				case enmime.ErrorContentEncoding:
					p.note(warningCodes[enmime.ErrorContentEncoding], "The transfer encoding %q is unknown; the %s is kept as it came.", part.Header.Get("Content-Transfer-Encoding"), what)
				case enmime.ErrorCharsetConversion:
					_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
					p.note(WarnUnknownCharset, "The charset %q is unknown; the %s is kept as it came.", params["charset"], what)
				}
			}
			switch {
			case p.DSN != nil && (ct == "message/delivery-status" || ct == "message/global-delivery-status"):
				p.DSN.read(bytes.NewReader(part.Content))
			case inline && ct == "text/plain" && p.Text != "" && p.moreText(part, alternative):
				continue
			case inline && ct == "text/plain" && p.Text == "" && brokenText == nil:
				if undecodable(part) {
					brokenText = part
					p.warnf(WarnTextUndecodable, "The text part could not be decoded; the HTML part is shown and the text part kept as an attachment.")
					continue
				}
				p.Text = strings.TrimRight(clean(p, p.body(part.Content, "text")), "\r\n")
				continue
			case inline && ct == "text/html" && p.HTML == nil:
				html := clean(p, p.body(p.metaCharset(part), "HTML"))
				p.HTML = &html
				continue
			}
			if !p.attach(part, ct) {
				dropped++
			}
		}
		return true
	}
	walk(root)
	if brokenText != nil && p.HTML == nil && !binary(brokenText.Content) {
		// No HTML to fall back to: the text is shown as it could be read.
		p.Text = strings.TrimRight(clean(p, p.body(brokenText.Content, "text")), "\r\n")
	} else if brokenText != nil && !p.attach(brokenText, "text/plain") {
		dropped++
	}
	if dropped > 0 {
		p.note(WarnAttachmentsLimit, "%d attachments over the limit of %d were not kept.", dropped, MaxAttachments)
	}
}

// undecodable says a text part's bytes are not text: base64 that was not
// (a malformed-base64 repair left bytes that are not UTF-8, or control
// characters), or binary data declared text (a GIF sent as text/plain).
func undecodable(part *enmime.Part) bool {
	malformed := false
	for _, e := range part.Errors {
		if e.Name == enmime.ErrorMalformedBase64 || e.Name == enmime.ErrorMalformedChildPart {
			malformed = true
		}
	}
	if binary(part.Content) {
		return true
	}
	return malformed && (!utf8.Valid(part.Content) || controls(part.Content, true)*20 > len(part.Content))
}

// binary says bytes are data, not text: control characters (NUL and the
// like), at least 3 and more than one in 20.
func binary(b []byte) bool {
	n := controls(b, false)
	return n >= 3 && n*20 > len(b)
}

// controls counts the control characters of b other than line and page
// breaks and tabs; invalid counts bytes that are not UTF-8 too.
func controls(b []byte, invalid bool) int {
	n := 0
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' || r == 0x7f || invalid && r == utf8.RuneError {
			n++
		}
	}
	return n
}

// moreText adds a further text part of a mail that is not, as a whole, an
// alternative to its text (alternative: the mail is multipart/alternative),
// as enmime does ("--" on a line between); a named one is kept as an
// attachment too, once. False when it is not such a part, would pass
// MaxBodyBytes, or is named and past MaxAttachments (the caller then
// counts it dropped).
func (p *Parsed) moreText(part *enmime.Part, alternative bool) bool {
	if alternative || len(p.Text)+len(part.Content) > MaxBodyBytes || undecodable(part) {
		return false
	}
	p.Text += "\n\n--\n" + strings.TrimRight(clean(p, string(part.Content)), "\r\n")
	return part.FileName == "" || p.attach(part, "text/plain")
}

// attach keeps a part as an attachment; false when over the limit.
func (p *Parsed) attach(part *enmime.Part, ct string) bool {
	if len(p.Attachments) == MaxAttachments {
		return false
	}
	name := part.FileName
	if name == "" {
		name = fmt.Sprintf("attachment-%d%s", len(p.Attachments)+1, extension(ct))
	}
	content := part.Content
	if content == nil {
		// Base64 that decodes to nothing (one stray character): an empty
		// file, its repair among the warnings.
		content = []byte{}
	}
	p.Attachments = append(p.Attachments, File{Filename: clean(p, name), ContentType: ct,
		ContentID: clean(p, strings.Trim(strings.TrimSpace(part.ContentID), "<>")), Content: content})
	return true
}

func extension(ct string) string {
	switch ct {
	case "message/rfc822":
		return ".eml"
	case "text/plain":
		return ".txt"
	case "text/html":
		return ".html"
	}
	if exts, _ := mime.ExtensionsByType(ct); len(exts) > 0 {
		return exts[0]
	}
	return ""
}
