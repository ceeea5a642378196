package email_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jhillyerd/enmime/v2"
	"github.com/msgsvc/msgsvc/channels/email"
)

// enmimeCorpus is every mail of testdata/enmime (see testdata/README.md).
func enmimeCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("testdata/enmime/*.raw")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no enmime corpus: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// normal is text as compared: LF line ends, no trailing blank space.
func normal(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
}

// TestEnmimeCorpus: every mail of enmime's own tests yields what enmime's
// default reader extracts, or better: the sender, the subject, the text
// (when the mail has a text part), every part's bytes (as an attachment, or
// as the text or HTML shown), and no U+FFFD where enmime has none.
func TestEnmimeCorpus(t *testing.T) {
	counts := map[string]int{}
	corpus := enmimeCorpus(t)
	for name, raw := range corpus {
		ref, err := enmime.ReadEnvelope(bytes.NewReader(raw))
		if err != nil {
			// enmime refuses it: ours must still not fail.
			if p := email.Parse(raw); p == nil || len(p.Notes) > 0 && p.Notes[0] == email.ParserFailed {
				t.Errorf("%s: enmime refuses it (%v) and so do we", name, err)
			}
			counts["refused by enmime"]++
			continue
		}
		p := email.Parse(raw)
		counts["read"]++
		if from, err := ref.AddressList("From"); err == nil && len(from) > 0 {
			counts["sender"]++
			if p.From != strings.ToLower(from[0].Address) {
				t.Errorf("%s: from %q, enmime %q", name, p.From, from[0].Address)
			}
		}
		if want := strings.TrimSpace(ref.GetHeader("Subject")); want != "" {
			counts["subject"]++
			if p.Subject != want {
				t.Errorf("%s: subject %q, enmime %q", name, p.Subject, want)
			}
		}
		if textFromPart(ref) && !storable(ref.Text) {
			counts["text: binary, kept as an attachment"]++
		} else if textFromPart(ref) {
			counts["text"]++
			if normal(p.Text) != normal(ref.Text) && !strings.HasPrefix(normal(p.Text), normal(ref.Text)+"\n\n[msgsvc") {
				t.Errorf("%s: text\n%q\nenmime\n%q", name, p.Text, ref.Text)
			}
		}
		if ref.HTML != "" {
			counts["html"]++
			if p.HTML == nil || normal(*p.HTML) != normal(ref.HTML) {
				t.Errorf("%s: html %v, enmime %.200q", name, p.HTML, ref.HTML)
			}
		}
		counts["parts"] += enmimeParts(t, name, p, ref)
		checkReplacement(t, name, p, ref)
	}
	t.Logf("%d mails: %v", len(corpus), counts)
}

// storable says s can be stored as text (Postgres takes no NUL and no
// bytes that are not UTF-8); enmime's text of a binary part cannot.
func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// textFromPart says enmime's text came from a text part (not made from the
// HTML, which each reader does its own way).
func textFromPart(ref *enmime.Envelope) bool {
	for _, e := range ref.Errors {
		if e.Name == enmime.ErrorPlainTextFromHTML {
			return false
		}
	}
	return ref.Text != ""
}

// enmimeParts: each attachment, inline and other part of enmime is one of
// ours byte for byte, or the text or HTML shown; the count compared.
func enmimeParts(t *testing.T, name string, p *email.Parsed, ref *enmime.Envelope) int {
	t.Helper()
	n := 0
	for _, parts := range [][]*enmime.Part{ref.Attachments, ref.Inlines, ref.OtherParts} {
		for _, part := range parts {
			if len(part.Content) == 0 {
				continue
			}
			n++
			if !hasPart(p, part.Content) {
				t.Errorf("%s: part %s %q (%d bytes) lost", name, part.ContentType, part.FileName, len(part.Content))
			}
		}
	}
	return n
}

func hasPart(p *email.Parsed, content []byte) bool {
	for _, a := range p.Attachments {
		if bytes.Equal(a.Content, content) {
			return true
		}
	}
	s := normal(string(content))
	return s == normal(p.Text) || (p.HTML != nil && s == normal(*p.HTML))
}

// checkReplacement: no U+FFFD in what we show where enmime shows none.
func checkReplacement(t *testing.T, name string, p *email.Parsed, ref *enmime.Envelope) {
	t.Helper()
	const bad = "\uFFFD"
	html := ""
	if p.HTML != nil {
		html = *p.HTML
	}
	for _, c := range []struct{ what, ours, theirs string }{
		{"subject", p.Subject, ref.GetHeader("Subject")},
		{"text", p.Text, ref.Text},
		{"html", html, ref.HTML},
	} {
		if strings.Contains(c.ours, bad) && !strings.Contains(c.theirs, bad) {
			t.Errorf("%s: U+FFFD in the %s where enmime has none: %q", name, c.what, c.ours)
		}
	}
}
