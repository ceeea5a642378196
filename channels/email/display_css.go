package email

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/gorilla/css/scanner"
)

// cssProperties are the properties html keeps, in style attributes and
// <style> blocks alike: colour, fonts, text alignment and decoration, the
// box (margins, padding, borders, sizes) and a few values of display.
// Nothing positions, nothing loads (url() only for the mail's own
// attachments), nothing runs.
var cssProperties = setOf("color", "background", "background-color", "background-image", "background-repeat",
	"background-position", "background-size", "font", "font-family", "font-size",
	"font-style", "font-weight", "font-variant", "text-align", "text-decoration", "text-transform",
	"text-indent", "letter-spacing", "word-spacing", "white-space", "word-break", "overflow-wrap",
	"line-height", "vertical-align", "display", "width", "height", "max-width", "min-width", "max-height",
	"min-height", "margin", "margin-top", "margin-right", "margin-bottom", "margin-left", "padding",
	"padding-top", "padding-right", "padding-bottom", "padding-left", "border", "border-top", "border-right",
	"border-bottom", "border-left", "border-color", "border-style", "border-width", "border-radius",
	"border-top-color", "border-right-color", "border-bottom-color", "border-left-color", "border-top-style",
	"border-right-style", "border-bottom-style", "border-left-style", "border-top-width", "border-right-width",
	"border-bottom-width", "border-left-width", "border-collapse", "border-spacing", "list-style-type",
	"table-layout", "text-underline-offset")

// displays are the values of display kept: none of them lays an element
// over the page.
var displays = setOf("block", "inline", "inline-block", "none", "table", "table-row", "table-cell",
	"table-row-group", "table-header-group", "table-footer-group", "table-caption", "list-item")

// cssFunctions are the functions a value may call: colours only.
var cssFunctions = setOf("rgb(", "rgba(", "hsl(", "hsla(")

// cssChars are the punctuation a value may hold.
const cssChars = ",/.%+-()"

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// declaration is one "property: value" kept.
type declaration struct{ property, value string }

// styleAttr is a style attribute's declarations that pass, as text ("" when
// none does).
func (s *sanitizer) styleAttr(text string) string {
	var out []string
	for _, d := range s.declarations(scanner.New(text), false) {
		out = append(out, d.property+": "+d.value)
	}
	return strings.Join(out, "; ")
}

// declarations reads declarations up to a "}" at their level or the end;
// inBlock refuses url() (a <style> block is not HTML-decoded, so a signed
// link's &amp; would not read back).
func (s *sanitizer) declarations(sc *scanner.Scanner, inBlock bool) []declaration {
	var out []declaration
	var cur []*scanner.Token
	flush := func() {
		if d, ok := s.declaration(cur, inBlock); ok {
			out = append(out, d)
		}
		cur = cur[:0]
	}
	depth := 0
	for {
		t := sc.Next()
		if t.Type == scanner.TokenEOF || t.Type == scanner.TokenError {
			flush()
			return out
		}
		switch {
		case t.Type == scanner.TokenChar && t.Value == "}" && depth == 0:
			flush()
			return out
		case t.Type == scanner.TokenChar && t.Value == ";" && depth == 0:
			flush()
			continue
		case t.Type == scanner.TokenChar && t.Value == "{":
			depth++
		case t.Type == scanner.TokenChar && t.Value == "}":
			depth--
		}
		cur = append(cur, t)
	}
}

// declaration checks one declaration's tokens against the allow-lists.
func (s *sanitizer) declaration(toks []*scanner.Token, inBlock bool) (declaration, bool) {
	toks = trimSpace(toks)
	if len(toks) < 3 || toks[0].Type != scanner.TokenIdent {
		return declaration{}, false
	}
	prop := strings.ToLower(toks[0].Value)
	rest := trimSpace(toks[1:])
	if !cssProperties[prop] || len(rest) < 2 || rest[0].Type != scanner.TokenChar || rest[0].Value != ":" {
		return declaration{}, false
	}
	value, ok := s.cssValue(trimSpace(rest[1:]), inBlock)
	if !ok || value == "" {
		return declaration{}, false
	}
	if prop == "display" && !displays[strings.TrimSuffix(value, " !important")] {
		return declaration{}, false
	}
	return declaration{prop, value}, true
}

// cssValue is a value written back from tokens that are all allowed:
// words, numbers, colours, quoted font names, the colour functions,
// !important, and url() of the mail's own inline images.
func (s *sanitizer) cssValue(toks []*scanner.Token, inBlock bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Type != scanner.TokenURI && strings.ContainsAny(t.Value, "\\<>{}@&`;\x00") {
			return "", false
		}
		switch t.Type {
		case scanner.TokenS:
			b.WriteByte(' ')
		case scanner.TokenIdent, scanner.TokenNumber, scanner.TokenPercentage, scanner.TokenDimension, scanner.TokenHash:
			if lower := strings.ToLower(t.Value); strings.Contains(lower, "expression") || strings.Contains(lower, "script") {
				return "", false
			}
			b.WriteString(t.Value)
		case scanner.TokenString:
			if strings.ContainsAny(t.Value, "\n\r\f()") {
				return "", false
			}
			b.WriteString(t.Value)
		case scanner.TokenFunction:
			if !cssFunctions[strings.ToLower(t.Value)] {
				return "", false
			}
			b.WriteString(strings.ToLower(t.Value))
		case scanner.TokenURI:
			ref, ok := s.cssURL(t.Value, inBlock)
			if !ok {
				return "", false
			}
			b.WriteString("url(" + ref + ")")
		case scanner.TokenChar:
			if t.Value == "!" && i+1 < len(toks) && strings.EqualFold(toks[i+1].Value, "important") {
				b.WriteString("!important")
				i++
				continue
			}
			if !strings.Contains(cssChars, t.Value) {
				return "", false
			}
			b.WriteString(t.Value)
		default:
			return "", false
		}
	}
	return strings.TrimSpace(b.String()), true
}

// cssURL is the link a url(cid:…) of the style attribute becomes: the
// mail's own attachment; any other url() is refused.
func (s *sanitizer) cssURL(token string, inBlock bool) (string, bool) {
	if inBlock {
		return "", false
	}
	inner := strings.TrimSpace(token[len("url(") : len(token)-1])
	inner = strings.Trim(inner, `"'`)
	if ref, ok := s.cid(inner); ok && !strings.ContainsAny(ref, "()'\" ") {
		return ref, true
	}
	return "", false
}

func trimSpace(toks []*scanner.Token) []*scanner.Token {
	for len(toks) > 0 && (toks[0].Type == scanner.TokenS || toks[0].Type == scanner.TokenComment) {
		toks = toks[1:]
	}
	for len(toks) > 0 && (toks[len(toks)-1].Type == scanner.TokenS || toks[len(toks)-1].Type == scanner.TokenComment) {
		toks = toks[:len(toks)-1]
	}
	return toks
}

var (
	// selectorChars: element, class and id selectors, combinators and
	// pseudo-classes; no attribute selectors, strings or escapes.
	selectorChars = regexp.MustCompile(`^[A-Za-z0-9_\-.#*:>+~ ()]+$`)
	mediaChars    = regexp.MustCompile(`^[A-Za-z0-9 ():,.\-]+$`)
	classOrID     = regexp.MustCompile(`([.#])(-?[A-Za-z_][A-Za-z0-9_-]*)`)
	rootSelector  = regexp.MustCompile(`^(?i:html|body|:root)\b`)
)

// stylesheet is a <style> block's rules that pass, each selector scoped
// under the wrapper (.msgsvc) with its classes and ids prefixed as the
// elements' are; @media keeps its rules, other at-rules are dropped.
func (s *sanitizer) stylesheet(text string) string {
	var b strings.Builder
	s.rules(scanner.New(text), &b, 0)
	out := b.String()
	if strings.Contains(out, "<") {
		return "" // never the end of the <style> element
	}
	return out
}

// rules reads rules up to a "}" of their level or the end, writing those
// that pass.
func (s *sanitizer) rules(sc *scanner.Scanner, b *strings.Builder, depth int) {
	var prelude strings.Builder
	for {
		t := sc.Next()
		switch {
		case t.Type == scanner.TokenEOF || t.Type == scanner.TokenError:
			return
		case t.Type == scanner.TokenChar && t.Value == "}":
			return
		case t.Type == scanner.TokenChar && t.Value == ";":
			prelude.Reset() // an at-rule without a block (@import, @charset)
		case t.Type == scanner.TokenChar && t.Value == "{":
			s.rule(sc, b, strings.TrimSpace(prelude.String()), depth)
			prelude.Reset()
		case t.Type == scanner.TokenComment, t.Type == scanner.TokenCDO, t.Type == scanner.TokenCDC:
		default:
			prelude.WriteString(t.Value)
		}
	}
}

// rule writes one rule whose block starts now.
func (s *sanitizer) rule(sc *scanner.Scanner, b *strings.Builder, prelude string, depth int) {
	if media, ok := strings.CutPrefix(strings.ToLower(prelude), "@media"); ok && depth == 0 && mediaChars.MatchString(media) {
		var inner strings.Builder
		s.rules(sc, &inner, depth+1)
		if inner.Len() > 0 {
			b.WriteString("@media " + strings.TrimSpace(media) + " {\n" + inner.String() + "}\n")
		}
		return
	}
	if strings.HasPrefix(prelude, "@") {
		skipBlock(sc)
		return
	}
	decls := s.declarations(sc, true)
	var sels []string
	for _, sel := range strings.Split(prelude, ",") {
		if sel = scopeSelector(strings.TrimSpace(sel)); sel != "" {
			sels = append(sels, sel)
		}
	}
	if len(sels) == 0 || len(decls) == 0 {
		return
	}
	b.WriteString(strings.Join(sels, ", ") + " {")
	for _, d := range decls {
		b.WriteString(" " + d.property + ": " + d.value + ";")
	}
	b.WriteString(" }\n")
}

// scopeSelector puts a selector under the wrapper: html, body and :root
// become the wrapper itself; "" when it is not one html keeps.
func scopeSelector(sel string) string {
	if sel == "" || !selectorChars.MatchString(sel) || strings.Count(sel, "(") != strings.Count(sel, ")") {
		return ""
	}
	sel = classOrID.ReplaceAllString(sel, "${1}"+idPrefix+"${2}")
	if loc := rootSelector.FindStringIndex(sel); loc != nil {
		return "." + wrapperClass + sel[loc[1]:]
	}
	return "." + wrapperClass + " " + sel
}

// skipBlock reads past the block whose "{" was read.
func skipBlock(sc *scanner.Scanner) {
	for depth := 1; depth > 0; {
		t := sc.Next()
		switch {
		case t.Type == scanner.TokenEOF || t.Type == scanner.TokenError:
			return
		case t.Type == scanner.TokenChar && t.Value == "{":
			depth++
		case t.Type == scanner.TokenChar && t.Value == "}":
			depth--
		}
	}
}

// parseURL reads an attribute's URL as a browser would (spaces around it
// trimmed); nil when it does not parse.
func parseURL(v string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil {
		return nil
	}
	return u
}
