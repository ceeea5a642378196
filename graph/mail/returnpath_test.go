package mail_test

import (
	"errors"
	"net/smtp"
	"net/textproto"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestReturnPathDomain(t *testing.T) {
	none, tmpl := mail.ReturnPath{}, mail.ReturnPath{Template: "bounces.{domain}"}
	for _, c := range []struct {
		rp                  mail.ReturnPath
		sending, configured string
		want                string
	}{
		{none, "acme.com", "", "acme.com"},
		{tmpl, "acme.com", "", "bounces.acme.com"},
		{tmpl, "acme.com", "rp.mailer.net", "rp.mailer.net"},
		{none, "acme.com", "rp.mailer.net", "rp.mailer.net"},
	} {
		if got := c.rp.Domain(c.sending, c.configured); got != c.want {
			t.Errorf("%+v Domain(%s, %q) = %s, want %s", c.rp, c.sending, c.configured, got, c.want)
		}
	}
	if got := tmpl.Sending("Bounces.Acme.com"); !slices.Equal(got, []string{"bounces.acme.com", "acme.com"}) {
		t.Errorf("Sending: %v", got)
	}
	if got := (mail.ReturnPath{Template: "{domain}.rp.mailer.net"}).Sending("acme.com.rp.mailer.net"); !slices.Equal(got, []string{"acme.com.rp.mailer.net", "acme.com"}) {
		t.Errorf("Sending with a suffix: %v", got)
	}
	if got := tmpl.Sending("acme.com"); !slices.Equal(got, []string{"acme.com"}) {
		t.Errorf("Sending of a domain outside the template: %v", got)
	}
	for _, bad := range []string{"bounces.acme.com", "{domain}{domain}", "bounces .{domain}", "-x.{domain}"} {
		if mail.CheckReturnPathTemplate(bad) == nil {
			t.Errorf("template %q accepted", bad)
		}
	}
	for _, good := range []string{"", "{domain}", "bounces.{domain}", "{domain}.rp.mailer.net"} {
		if err := mail.CheckReturnPathTemplate(good); err != nil {
			t.Errorf("template %q: %v", good, err)
		}
	}
}

// sendAndBounce sends a live mail, checks its envelope sender is at
// returnPath, then delivers a failed DSN to that address.
func sendAndBounce(t *testing.T, api *liveEmail, returnPath string) {
	t.Helper()
	addr := listen(t, api)
	id := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "gone@example.com", "from": "support@verified.test", "subject": "Hi", "text": "x"}), 201, "").Data()["id"].(string)
	mails := api.Sink.Mails()
	if want := "bounces+" + id + "@" + returnPath; len(mails) != 1 || mails[0].From != want {
		t.Fatalf("envelope sender %v, want %s", mails, want)
	}
	dsn, _ := os.ReadFile("../../channels/email/testdata/dsn.eml")
	if err := deliver(t, api, addr, "", []string{mails[0].From}, []byte(strings.ReplaceAll(string(dsn), "msg_PLACEHOLDER", id))); err != nil {
		t.Fatal(err)
	}
	m := api.Do("GET", "/v1/messages/"+id, "live_all", nil).Data()
	if e, _ := m["delivery"].(map[string]any)["error"].(map[string]any); m["status"] != "failed" || e["code"] != "bounced" {
		t.Fatalf("bounce to %s: %v", returnPath, m)
	}
	// A bounce address at a domain that is no return path is a stranger.
	err := smtp.SendMail(addr, nil, "", []string{"bounces+" + id + "@bounces.unknown.test"}, []byte("Subject: x\r\n\r\nx\r\n"))
	var tpErr *textproto.Error
	if !errors.As(err, &tpErr) || tpErr.Code != 550 {
		t.Fatalf("bounce address of an unknown domain: %v", err)
	}
}

func TestReturnPathFromTemplate(t *testing.T) {
	api := newLiveEmail(t, func(a *resttest.API) { a.Config.Mail.ReturnPath = mail.ReturnPath{Template: "bounces.{domain}"} })
	sendAndBounce(t, api, "bounces.verified.test")
}

func TestReturnPathOfTheDomain(t *testing.T) {
	api := newLiveEmail(t, func(a *resttest.API) {
		a.Config.Mail.ReturnPath = mail.ReturnPath{Template: "bounces.{domain}"}
		if err := a.Store.UpsertEmailDomain(t.Context(), &repo.EmailDomain{WorkspaceID: "ws_main", Domain: "verified.test",
			Verified: true, Processing: true, ReturnPathDomain: "rp.mailer.test"}); err != nil {
			t.Fatal(err)
		}
	})
	sendAndBounce(t, api, "rp.mailer.test")
}

func TestReturnPathDefaultIsTheSendingDomain(t *testing.T) {
	sendAndBounce(t, newLiveEmail(t), "verified.test")
}
