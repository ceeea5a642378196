package email_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email"
)

// TestParseRFC2231Boundary: a boundary given as an RFC 2231 parameter
// (extended, continued, with or without a charset) splits the parts.
func TestParseRFC2231Boundary(t *testing.T) {
	body := "--b1\r\nContent-Type: text/plain\r\n\r\nhello 2231\r\n--b1\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\n\r\n%PDF\r\n--b1--\r\n"
	for _, ct := range []string{
		`multipart/mixed; boundary*=''b1`,
		`multipart/mixed; boundary*=utf-8''b1`,
		`multipart/mixed; boundary*=iso-8859-1'en'b%31`,
		`multipart/mixed; boundary*0="b"; boundary*1="1"`,
		`multipart/mixed; boundary*0*=''b; boundary*1=1`,
		"multipart/mixed;\r\n boundary*1=\"1\";\r\n boundary*0=\"b\"",
	} {
		p := email.Parse(mailWith(ct, body))
		if p.Text != "hello 2231" || len(p.Attachments) != 1 || string(p.Attachments[0].Content) != "%PDF" || len(p.Notes) > 0 {
			t.Errorf("%s: text %q, %d attachments, notes %v", ct, p.Text, len(p.Attachments), p.Notes)
		}
	}
}

// TestParseSameBoundaryNested: a multipart inside one with the same
// boundary holds the parts up to its own closing delimiter; the outer one
// goes on after it.
func TestParseSameBoundaryNested(t *testing.T) {
	nested := "--X\r\nContent-Type: multipart/alternative; boundary=X\r\n\r\n" +
		"--X\r\nContent-Type: text/plain\r\n\r\nplain words\r\n--X\r\nContent-Type: text/html\r\n\r\n<p>html words</p>\r\n--X--\r\n" +
		"--X\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\n\r\n%PDF\r\n--X--\r\n"
	p := email.Parse(mailWith(`multipart/mixed; boundary="X"`, nested))
	if p.Text != "plain words" || p.HTML == nil || *p.HTML != "<p>html words</p>" || len(p.Attachments) != 1 ||
		p.Attachments[0].Filename != "a.pdf" || string(p.Attachments[0].Content) != "%PDF" {
		t.Errorf("nested: %q %v %+v %v", p.Text, p.HTML, p.Attachments, p.Notes)
	}
	// Three levels, the innermost folded over two lines.
	deep := "--X\r\nContent-Type: multipart/related; boundary=\"X\"\r\n\r\n--X\r\nContent-Type: multipart/alternative;\r\n boundary=\"X\"\r\n\r\n" +
		"--X\r\nContent-Type: text/plain\r\n\r\ndeep\r\n--X--\r\n--X\r\nContent-Type: image/png; name=\"i.png\"\r\n\r\nPNG\r\n--X--\r\n" +
		"--X\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\n\r\n%PDF\r\n--X--\r\n"
	p = email.Parse(mailWith(`multipart/mixed; boundary="X"`, deep))
	var names []string
	for _, a := range p.Attachments {
		names = append(names, a.Filename+"="+string(a.Content))
	}
	if p.Text != "deep" || strings.Join(names, ",") != "i.png=PNG,a.pdf=%PDF" {
		t.Errorf("three levels: %q %v %v", p.Text, names, p.Notes)
	}
}
