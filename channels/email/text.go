package email

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// blocks end a line of text; the rest of the tags are inline.
var blocks = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true,
	"h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "blockquote": true, "pre": true,
	"table": true, "ul": true, "ol": true, "hr": true, "section": true, "article": true}

var (
	spaces     = regexp.MustCompile(`[ \t\r\f\v]+`)
	blankLines = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`)
)

// HTMLToText is the text part made from an HTML body: the text
// of the elements, a line per block, a link's address after its text;
// scripts and styles dropped.
func HTMLToText(body string) string {
	z := html.NewTokenizer(strings.NewReader(body))
	var b strings.Builder
	skip := 0
	type anchor struct {
		link  string
		start int
	}
	var open []anchor
	for {
		switch z.Next() {
		case html.ErrorToken:
			out := blankLines.ReplaceAllString(b.String(), "\n\n")
			return strings.TrimSpace(out)
		case html.TextToken:
			if skip == 0 {
				b.WriteString(spaces.ReplaceAllString(string(z.Text()), " "))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			switch {
			case tag == "script" || tag == "style" || tag == "head":
				skip++
			case tag == "a":
				open = append(open, anchor{linkOf(z, hasAttr), b.Len()})
			case tag == "li":
				b.WriteString("\n- ")
			case blocks[tag]:
				b.WriteString("\n")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			switch {
			case (tag == "script" || tag == "style" || tag == "head") && skip > 0:
				skip--
			case tag == "a" && len(open) > 0:
				a := open[len(open)-1]
				if shown := strings.TrimSpace(b.String()[a.start:]); a.link != "" && shown != a.link &&
					"mailto:"+shown != a.link {
					b.WriteString(" (" + a.link + ")")
				}
				open = open[:len(open)-1]
			case blocks[tag] && tag != "li":
				b.WriteString("\n")
			}
		}
	}
}

func linkOf(z *html.Tokenizer, hasAttr bool) string {
	for hasAttr {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		if string(key) == "href" {
			v := string(val)
			if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "mailto:") {
				return v
			}
		}
	}
	return ""
}
