package email

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Remote image policies (MSGSVC_EMAIL_REMOTE_IMAGES).
const (
	// RemoteImagesBlock removes the src of remote images (the address
	// moves to data-msgsvc-remote-src) and warns remote_images_blocked.
	RemoteImagesBlock = "block"
	// RemoteImagesAllow keeps http and https images as they are.
	RemoteImagesAllow = "allow"
	// RemoteImagesProxy points them at channels.ImageProxyPrefix + the
	// address; reads make that msgsvc's signed image proxy link
	// (graph/files).
	RemoteImagesProxy = "proxy"
)

const (
	// idPrefix starts every id, name and class of the mail, so none
	// clobbers the page's DOM (id="location") or matches its styles.
	idPrefix = "msgsvc-"
	// wrapperClass is the class of the div that holds a mail with <style>
	// blocks or body attributes; no class of the mail can be it.
	wrapperClass = "msgsvc"
	// RemoteSrcAttr holds a blocked remote image's address.
	RemoteSrcAttr = "data-msgsvc-remote-src"
	// MaxDataImage bounds a data:image URL kept in an img.
	MaxDataImage = 100 << 10
)

// Display makes an inbound mail's HTML safe and still looking right in a
// browser: the html field (html_raw keeps the mail's own).
type Display struct {
	// Inline maps a Content-ID (without <>) to the link a cid: reference
	// to it becomes: the mail's own attachments only.
	Inline map[string]string
	// RemoteImages is RemoteImagesBlock ("" too), RemoteImagesAllow or
	// RemoteImagesProxy.
	RemoteImages string
}

type sanitizer struct {
	Display
	blocked int
}

// Sanitize is the HTML to show and the warnings of what it withheld.
func (d Display) Sanitize(raw string) (string, []Warning) {
	doc, err := html.Parse(strings.NewReader(raw))
	if err != nil {
		// Too deep a tree for the parser: its text alone.
		text := strings.ReplaceAll(html.EscapeString(HTMLToText(raw)), "\n", "<br/>")
		return "<p>" + text + "</p>", []Warning{{Code: WarnHTMLAsText,
			Detail: "The HTML could not be read as a document (" + err.Error() + "); its text is shown."}}
	}
	s := &sanitizer{Display: d}
	var css strings.Builder
	var body *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.ElementNode && c.DataAtom == atom.Style && c.Namespace == "":
				css.WriteString(textOf(c) + "\n")
			case c.Type == html.ElementNode && c.DataAtom == atom.Body && body == nil:
				body = c
			}
			find(c)
		}
	}
	find(doc)
	if body == nil {
		return "", nil
	}
	body.Attr = s.attrs("body", body.Attr)
	s.clean(body)
	out := s.wrap(body, s.stylesheet(css.String()))
	var warnings []Warning
	if s.blocked > 0 {
		warnings = AddWarning(warnings, Warning{Code: WarnRemoteImages,
			Detail: fmt.Sprintf("%d remote images were not loaded; their addresses are in %s.", s.blocked, RemoteSrcAttr)})
	}
	return out, warnings
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// wrap renders the cleaned body: its children alone, or inside
// <div class="msgsvc"> with the body's own look and the scoped stylesheet
// when there is either.
func (s *sanitizer) wrap(body *html.Node, css string) string {
	var look []html.Attribute
	var style []string
	for _, a := range body.Attr {
		switch a.Key {
		case "style":
			style = append(style, a.Val)
		case "bgcolor":
			style = append(style, "background-color: "+a.Val)
		case "text":
			style = append(style, "color: "+a.Val)
		}
	}
	if len(style) > 0 {
		look = append(look, html.Attribute{Key: "style", Val: strings.Join(style, "; ")})
	}
	var b strings.Builder
	if css != "" || len(look) > 0 {
		div := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div,
			Attr: append([]html.Attribute{{Key: "class", Val: wrapperClass}}, look...)}
		if css != "" {
			st := &html.Node{Type: html.ElementNode, Data: "style", DataAtom: atom.Style}
			st.AppendChild(&html.Node{Type: html.TextNode, Data: css})
			div.AppendChild(st)
		}
		for c := body.FirstChild; c != nil; c = body.FirstChild {
			body.RemoveChild(c)
			div.AppendChild(c)
		}
		_ = html.Render(&b, div)
		return b.String()
	}
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		_ = html.Render(&b, c)
	}
	return b.String()
}

// dropped are elements removed with everything in them: what runs, loads,
// embeds or submits, and raw-text elements whose content a browser would
// read differently.
var dropped = setOf("script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "noscript",
	"noembed", "noframes", "template", "title", "head", "meta", "link", "base", "input", "keygen", "audio", "video",
	"source", "track", "canvas", "area", "param", "portal", "plaintext", "xmp", "listing", "image", "isindex",
	"math", "svg")

// kept are the elements html keeps (with the attributes of attributes);
// any other element gives way to its content.
var kept = setOf("a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote",
	"br", "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt",
	"em", "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img",
	"ins", "kbd", "li", "main", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "section", "small",
	"span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time",
	"tr", "tt", "u", "ul", "var", "wbr", "label", "fieldset", "legend", "nobr")

// clean keeps the allowed elements and attributes under n, in place.
func (s *sanitizer) clean(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.TextNode:
		case c.Type != html.ElementNode || c.Namespace != "" || dropped[c.Data]:
			n.RemoveChild(c)
		case kept[c.Data]:
			c.Attr = s.attrs(c.Data, c.Attr)
			s.clean(c)
		default:
			s.clean(c)
			for gc := c.FirstChild; gc != nil; gc = c.FirstChild {
				c.RemoveChild(gc)
				n.InsertBefore(gc, c)
			}
			n.RemoveChild(c)
		}
		c = next
	}
}

// attributes are the attributes kept per element ("*": on every one);
// their values are checked by kind in attr.
var attributes = map[string]map[string]bool{
	"*":     setOf("style", "class", "id", "title", "dir", "lang", "align"),
	"a":     setOf("href", "name"),
	"img":   setOf("src", "alt", "width", "height", "border", "vspace", "hspace"),
	"table": setOf("width", "height", "border", "cellpadding", "cellspacing", "bgcolor", "summary"),
	"td":    setOf("width", "height", "bgcolor", "valign", "colspan", "rowspan", "nowrap"),
	"th":    setOf("width", "height", "bgcolor", "valign", "colspan", "rowspan", "nowrap", "scope"),
	"tr":    setOf("height", "bgcolor", "valign"),
	"tbody": setOf("valign", "bgcolor"), "thead": setOf("valign", "bgcolor"), "tfoot": setOf("valign", "bgcolor"),
	"col":      setOf("span", "width", "valign"),
	"colgroup": setOf("span", "width", "valign"),
	"font":     setOf("color", "face", "size"),
	"hr":       setOf("width", "size", "noshade", "color"),
	"ol":       setOf("start", "type", "reversed"),
	"ul":       setOf("type"),
	"li":       setOf("value", "type"),
	"time":     setOf("datetime"),
	"details":  setOf("open"),
	"body":     setOf("bgcolor", "text"),
}

var (
	colour    = regexp.MustCompile(`^(#[0-9A-Fa-f]{3,8}|[A-Za-z]{3,20})$`)
	length    = regexp.MustCompile(`^\d{1,5}(\.\d+)?(%|px)?$`)
	number    = regexp.MustCompile(`^[+-]?\d{1,4}$`)
	word      = regexp.MustCompile(`^[A-Za-z-]{1,20}$`)
	fontFaces = regexp.MustCompile(`^[A-Za-z0-9 ,'"_-]{1,200}$`)
	idValue   = regexp.MustCompile(`^[A-Za-z0-9_:.-]{1,100}$`)
	alignment = setOf("left", "right", "center", "justify", "top", "middle", "bottom", "baseline")
)

// attrs filters one element's attributes.
func (s *sanitizer) attrs(tag string, in []html.Attribute) []html.Attribute {
	out := in[:0:0]
	for _, a := range in {
		a.Key = strings.ToLower(a.Key)
		if a.Namespace != "" || !(attributes["*"][a.Key] || attributes[tag][a.Key]) {
			continue
		}
		if v, ok := s.attr(tag, a.Key, strings.TrimSpace(a.Val)); ok {
			out = append(out, html.Attribute{Key: a.Key, Val: v})
		}
	}
	if tag == "a" {
		out = s.link(out)
	}
	if tag == "img" {
		out = s.image(out)
	}
	return out
}

// attr checks one value by its kind.
func (s *sanitizer) attr(tag, key, v string) (string, bool) {
	switch key {
	case "style":
		v = s.styleAttr(v)
		return v, v != ""
	case "class":
		var out []string
		for _, c := range strings.Fields(v) {
			if idValue.MatchString(c) {
				out = append(out, idPrefix+c)
			}
		}
		return strings.Join(out, " "), len(out) > 0
	case "id", "name":
		return idPrefix + v, idValue.MatchString(v)
	case "align", "valign":
		v = strings.ToLower(v)
		return v, alignment[v]
	case "bgcolor", "color", "text":
		return v, colour.MatchString(v)
	case "width", "height", "border", "cellpadding", "cellspacing", "vspace", "hspace":
		return v, length.MatchString(v)
	case "colspan", "rowspan", "span", "start", "value", "size":
		return v, number.MatchString(v)
	case "face":
		return v, fontFaces.MatchString(v)
	case "type", "scope", "dir", "lang":
		return v, word.MatchString(v)
	case "nowrap", "noshade", "reversed", "open":
		return "", true
	case "src", "href":
		return v, true // checked with the element (link, image)
	default: // title, alt, summary, datetime: text
		return v, true
	}
}
