package mail_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/model"
)

// Show joins the display's warnings to the parser's as the parser does:
// each once, after those already there.
func TestDisplayShowJoinsWarningsOnce(t *testing.T) {
	parsed := []model.EmailWarning{{Code: "charset_mismatch", Detail: "latin1"}}
	html := `<p>hi</p><img src="https://example.com/a.png"><img src="https://example.com/b.png">`
	safe, got := mail.Display{RemoteImages: "block"}.Show(html, nil, parsed)
	if strings.Contains(safe, ` src="https://example.com`) {
		t.Errorf("a remote image kept its src under block: %s", safe)
	}
	if len(got) != 2 || got[0] != parsed[0] || got[1].Code != "remote_images_blocked" {
		t.Fatalf("warnings %+v, want charset_mismatch then one remote_images_blocked", got)
	}
	_, again := mail.Display{RemoteImages: "block"}.Show(html, nil, got)
	if len(again) != 2 {
		t.Errorf("showing again added a warning already there: %+v", again)
	}
	if _, none := (mail.Display{RemoteImages: "allow"}).Show(html, nil, nil); none == nil || len(none) != 0 {
		t.Errorf("allow: warnings %#v, want an empty list", none)
	}
}
