package mail_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// GET /v1/email/senders shows each sender's return path and the records
// its domain publishes: the DKIM key's TXT (what a verifier looks up), the
// return path's MX to msgsvc and its SPF, and a first DMARC.
func TestSendersShowTheirDNSRecords(t *testing.T) {
	api := newLiveEmail(t, func(a *resttest.API) {
		a.Config.Mail = mail.Settings{ReturnPath: mail.ReturnPath{Template: "bounces.{domain}"},
			MXHost: "mx.msgsvc.test", RelayHost: "smtp.office365.com"}
	})
	var support map[string]any
	for _, s := range list(api.Want(api.Do("GET", "/v1/email/senders", "conv_read", nil), 200, "")) {
		if s["address"] == "support@verified.test" {
			support = s
		}
	}
	if support == nil || support["return_path_domain"] != "bounces.verified.test" {
		t.Fatalf("sender %v", support)
	}
	got, _ := json.Marshal(support["dns_records"])
	want, _ := json.Marshal([]map[string]string{
		{"purpose": "dkim", "type": "TXT", "name": "msgsvc._domainkey.verified.test", "value": api.TXT},
		{"purpose": "return_path", "type": "MX", "name": "bounces.verified.test", "value": "10 mx.msgsvc.test."},
		{"purpose": "spf", "type": "TXT", "name": "bounces.verified.test", "value": "v=spf1 include:spf.protection.outlook.com ~all"},
		{"purpose": "dmarc", "type": "TXT", "name": "_dmarc.verified.test", "value": "v=DMARC1; p=none; rua=mailto:dmarc@verified.test"},
	})
	if string(got) != string(want) {
		t.Fatalf("records\n%s\nwant\n%s", got, want)
	}
}

// Without a return path of its own the sending domain is the envelope's:
// no MX is listed (that MX is the domain's mailboxes'), SPF goes on the
// domain itself.
func TestSendersWithoutReturnPath(t *testing.T) {
	api := newLiveEmail(t, func(a *resttest.API) {
		a.Config.Mail = mail.Settings{MXHost: "mx.msgsvc.test", RelayHost: "email-smtp.eu-west-1.amazonaws.com"}
	})
	for _, s := range list(api.Want(api.Do("GET", "/v1/email/senders", "conv_read", nil), 200, "")) {
		if s["address"] != "support@verified.test" {
			continue
		}
		recs, _ := s["dns_records"].([]any)
		if s["return_path_domain"] != "verified.test" || len(recs) != 3 {
			t.Fatalf("sender %v", s)
		}
		spf, _ := recs[1].(map[string]any)
		if spf["name"] != "verified.test" || spf["value"] != "v=spf1 include:amazonses.com ~all" {
			t.Fatalf("spf %v", spf)
		}
		return
	}
	t.Fatal("no support@verified.test sender")
}

// A relay whose OAuth token endpoint refuses the refresh (RFC 6749 5.2)
// answers the send 503 channel_unavailable naming the endpoint's error,
// never the client secret or the refresh token.
func TestLiveEmailOAuthRefused(t *testing.T) {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"The refresh token has expired."}`))
	}))
	t.Cleanup(endpoint.Close)
	api := newLiveEmail(t, func(a *resttest.API) {
		relay := a.Config.Adapters["email"].(*email.Adapter).Relay
		relay.Username = "mailer@verified.test"
		relay.Tokens = &email.OAuthClient{OAuthConfig: email.OAuthConfig{TokenURL: endpoint.URL, ClientID: "app-1",
			ClientSecret: "app-secret-123", RefreshToken: "refresh-456"}, Now: a.Clock.Now}
	})
	api.Sink.Server.AllowInsecureAuth = true
	api.Sink.OfferAuth("XOAUTH2")
	r := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "ada@example.com", "from": "support@verified.test", "subject": "Hi", "text": "x"}), 503, "channel_unavailable")
	body, _ := json.Marshal(r.Body)
	if !strings.Contains(string(body), "invalid_grant") || strings.Contains(string(body), "app-secret-123") ||
		strings.Contains(string(body), "refresh-456") || len(api.Sink.Mails()) != 0 {
		t.Fatalf("answer %s, %d mails", body, len(api.Sink.Mails()))
	}
}
