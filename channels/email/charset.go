package email

import (
	"regexp"

	"github.com/jhillyerd/enmime/v2"
	"golang.org/x/net/html/charset"
)

// metaCharsetTag finds the charset an HTML document names in its <meta>.
var metaCharsetTag = regexp.MustCompile(`(?i)<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)`)

// metaCharset is an HTML part's text: when neither its header declared a
// charset nor one was detected, the one its <meta> names, as browsers read
// it (warned charset_from_html).
func (p *Parsed) metaCharset(part *enmime.Part) []byte {
	if part.Charset != "" {
		return part.Content
	}
	head := part.Content[:min(len(part.Content), 2048)]
	m := metaCharsetTag.FindSubmatch(head)
	if m == nil {
		return part.Content
	}
	enc, name := charset.Lookup(string(m[1]))
	if enc == nil || name == "utf-8" {
		return part.Content
	}
	out, err := enc.NewDecoder().Bytes(part.Content)
	if err != nil {
		return part.Content
	}
	p.warnf(WarnCharsetFromHTML, "The HTML part declared no charset; it was read as %s, the charset of its <meta>.", name)
	return out
}
