package email_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// payloads are DOMPurify's test payloads (testdata/README.md).
func payloads(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/dompurify/payloads.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Title, Payload string }
	if err := json.Unmarshal(b, &cases); err != nil || len(cases) == 0 {
		t.Fatalf("payloads: %v", err)
	}
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c.Payload
	}
	return out
}

// corpusInline is the inline map the corpus tests sanitise with.
var corpusInline = map[string]string{"logo": "msgsvc-file:file_1/"}

// TestDisplayDOMPurifyCorpus: every DOMPurify payload, sanitised with
// each remote image policy, parses (as a browser would read it) to a tree
// with nothing executable, no relative URL and no unprefixed id or name.
func TestDisplayDOMPurifyCorpus(t *testing.T) {
	all := payloads(t)
	changed, unsafeIn := 0, 0
	for i, payload := range all {
		if len(unsafeHTML(payload)) > 0 {
			unsafeIn++
		}
		for _, policy := range []string{email.RemoteImagesBlock, email.RemoteImagesAllow, email.RemoteImagesProxy} {
			out, _ := email.Display{Inline: corpusInline, RemoteImages: policy}.Sanitize(payload)
			if problems := unsafeHTML(out); len(problems) > 0 {
				t.Errorf("payload %d (%s) %q:\n%s\n%v", i, policy, payload, out, problems)
			}
			if out != payload {
				changed++
			}
		}
	}
	// The check itself finds what it looks for: most payloads as they came.
	if unsafeIn < len(all)/2 {
		t.Errorf("only %d of %d payloads are unsafe as they came", unsafeIn, len(all))
	}
	t.Logf("%d payloads (%d unsafe as they came), each under 3 policies: %d outputs differ from their input", len(all), unsafeIn, changed)
}

var (
	dangerousElements = map[string]bool{"script": true, "iframe": true, "frame": true, "object": true, "embed": true,
		"form": true, "base": true, "applet": true, "link": true, "svg": true, "math": true, "input": true,
		"button": true, "textarea": true, "select": true, "template": true, "noscript": true}
	urlAttributes = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "background": true,
		"poster": true, "cite": true, "data": true, "codebase": true, "srcset": true, "xlink:href": true, "ping": true,
		"lowsrc": true, "dynsrc": true, "longdesc": true, "usemap": true, "manifest": true, "icon": true}
	absoluteURL = regexp.MustCompile(`^(https?://[^/\s]|mailto:|tel:|msgsvc-file:file_1/$|msgsvc-image:https?://[^/\s])`)
	dataImage   = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,`)
)

// unsafeHTML reads out as a browser would and lists what could run, load
// from a relative URL or clobber the page's DOM.
func unsafeHTML(out string) []string {
	nodes, err := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			problems = append(problems, unsafeElement(n)...)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return problems
}

func unsafeElement(n *html.Node) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if dangerousElements[n.Data] || n.Namespace != "" {
		bad("element %s %s", n.Namespace, n.Data)
	}
	if n.Data == "style" {
		if css := strings.ToLower(textContent(n)); strings.Contains(css, "url(") || strings.Contains(css, "expression") ||
			strings.Contains(css, "@import") || strings.Contains(css, "position") {
			bad("style block %q", css)
		}
	}
	for _, a := range n.Attr {
		key, val := strings.ToLower(a.Key), strings.TrimSpace(a.Val)
		lower := strings.ToLower(val)
		switch {
		case strings.HasPrefix(key, "on"):
			bad("handler %s", key)
		case n.Data == "meta" && key == "http-equiv":
			bad("meta %s", val)
		case urlAttributes[key] && !(absoluteURL.MatchString(val) || n.Data == "img" && key == "src" && dataImage.MatchString(val)):
			bad("%s=%q", key, val)
		case (key == "id" || key == "name") && !strings.HasPrefix(val, "msgsvc-"):
			bad("%s=%q", key, val)
		case key == "style" && (strings.Contains(lower, "url(") && !strings.Contains(lower, "url(msgsvc-file:file_1/)") ||
			strings.Contains(lower, "expression") || strings.Contains(lower, "position") || strings.Contains(lower, "behavior") ||
			strings.Contains(lower, "binding")):
			bad("style=%q", val)
		case strings.Contains(lower, "javascript:") || strings.Contains(lower, "vbscript:"):
			if key != "title" && key != "alt" && key != "summary" {
				bad("%s=%q", key, val)
			}
		}
	}
	return problems
}

func textContent(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// FuzzDisplay: whatever HTML arrives, what Sanitize returns is safe as
// TestDisplayDOMPurifyCorpus defines it. Seeds: DOMPurify's payloads.
func FuzzDisplay(f *testing.F) {
	for _, p := range payloads(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _ := email.Display{Inline: corpusInline}.Sanitize(in)
		if problems := unsafeHTML(out); len(problems) > 0 {
			t.Fatalf("%q\n%s\n%v", in, out, problems)
		}
	})
}
