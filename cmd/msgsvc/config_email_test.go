package main

import (
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
)

func TestEmailAdapterFromConfig(t *testing.T) {
	env := map[string]string{"MSGSVC_SMTP_RELAY": "smtp://mailer:pw@relay.example.com:587",
		"MSGSVC_SMTP_HOSTNAME": "mx.acme.test", "MSGSVC_PROVIDER_TIMEOUT": "7s"}
	cfg, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := emailAdapter(cfg.Live, time.Now)
	if err != nil || a == nil {
		t.Fatalf("adapter %v %v", a, err)
	}
	want := email.Relay{Addr: "relay.example.com:587", TLS: email.STARTTLS, Username: "mailer", Password: "pw", Hostname: "mx.acme.test"}
	if *a.Relay != want || a.Timeout != 7*time.Second {
		t.Fatalf("relay %+v timeout %v", *a.Relay, a.Timeout)
	}
	cfg.Live.SMTPRelay = nil
	if a, err := emailAdapter(cfg.Live, time.Now); a != nil || err != nil {
		t.Fatalf("without a relay: %v %v", a, err)
	}
}

// MSGSVC_SMTP_TLS_CERT and _KEY go together and must load.
func TestListenerTLSConfig(t *testing.T) {
	if c, err := listenerTLS(LiveConfig{}); c != nil || err != nil {
		t.Fatalf("neither set: %v %v", c, err)
	}
	if _, err := listenerTLS(LiveConfig{SMTPTLSCert: "/nonexistent/cert.pem"}); err == nil {
		t.Fatal("a certificate without its key was accepted")
	}
	if _, err := listenerTLS(LiveConfig{SMTPTLSCert: "/nonexistent/cert.pem", SMTPTLSKey: "/nonexistent/key.pem"}); err == nil ||
		!strings.Contains(err.Error(), "MSGSVC_SMTP_TLS_CERT") {
		t.Fatalf("unreadable files: %v", err)
	}
}

// MSGSVC_SMTP_RETURN_PATH_DOMAIN is a domain holding {domain} once.
func TestReturnPathDomainConfig(t *testing.T) {
	env := map[string]string{"MSGSVC_SMTP_RETURN_PATH_DOMAIN": "Bounces.{domain}"}
	cfg, err := loadConfig(func(k string) string { return env[k] })
	if err != nil || cfg.Live.SMTP.ReturnPathDomain != "bounces.{domain}" {
		t.Fatalf("%q %v", cfg.Live.SMTP.ReturnPathDomain, err)
	}
	env["MSGSVC_SMTP_RETURN_PATH_DOMAIN"] = "bounces.acme.com"
	if _, err := loadConfig(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "MSGSVC_SMTP_RETURN_PATH_DOMAIN") {
		t.Fatalf("a template without {domain}: %v", err)
	}
}

// MSGSVC_SMTP_OAUTH_* make the relay's XOAUTH2 token client; the relay must
// name the mailbox and use TLS, the endpoint https.
func TestSMTPOAuthConfig(t *testing.T) {
	env := map[string]string{"MSGSVC_SMTP_RELAY": "smtp://mailer%40acme.com@smtp.office365.com:587",
		"MSGSVC_SMTP_OAUTH_TOKEN_URL": "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token",
		"MSGSVC_SMTP_OAUTH_CLIENT_ID": "app-1", "MSGSVC_SMTP_OAUTH_CLIENT_SECRET": "s", "MSGSVC_SMTP_OAUTH_REFRESH_TOKEN": "r"}
	load := func() (*email.Adapter, error) {
		cfg, err := loadConfig(func(k string) string { return env[k] })
		if err != nil {
			return nil, err
		}
		return emailAdapter(cfg.Live, time.Now)
	}
	a, err := load()
	if err != nil {
		t.Fatal(err)
	}
	o, ok := a.Relay.Tokens.(*email.OAuthClient)
	if !ok || o.ClientID != "app-1" || o.RefreshToken != "r" || a.Relay.Username != "mailer@acme.com" {
		t.Fatalf("relay %+v", a.Relay)
	}
	for name, bad := range map[string]string{
		"MSGSVC_SMTP_OAUTH_TOKEN_URL": "http://login.example.com/token",
		"MSGSVC_SMTP_OAUTH_CLIENT_ID": "",
		"MSGSVC_SMTP_RELAY":           "smtp://smtp.office365.com:587",
	} {
		keep := env[name]
		env[name] = bad
		if _, err := load(); err == nil {
			t.Errorf("%s=%q accepted", name, bad)
		}
		env[name] = keep
	}
}

// An email setting that acts only with another is refused without it,
// not ignored.
func TestSMTPSettingsWithoutTheirCounterpart(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"MSGSVC_SMTP_OAUTH_TOKEN_URL": {"MSGSVC_SMTP_OAUTH_TOKEN_URL": "https://login.example.com/token", "MSGSVC_SMTP_OAUTH_CLIENT_ID": "app-1"},
		"MSGSVC_SMTP_TLS_CERT":        {"MSGSVC_SMTP_TLS_CERT": "/etc/msgsvc/cert.pem", "MSGSVC_SMTP_TLS_KEY": "/etc/msgsvc/key.pem"},
	} {
		if _, err := loadConfig(env(vars)); err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("%v: %v; want an error naming %s", vars, err, name)
		}
	}
}

// The inbound listener's limits have their defaults, and a value out of
// range stops the start naming its variable.
func TestListenerLimitsConfig(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	cfg, err := loadConfig(get)
	if s := cfg.Live.SMTP; err != nil || s.DataTimeout != email.DataTimeout || s.ReadingPerIP != email.MaxMailsReadingPerIP ||
		s.SessionsPerIP != email.MaxSessionsPerIP {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	env = map[string]string{"MSGSVC_SMTP_DATA_TIMEOUT": "90s", "MSGSVC_SMTP_MAX_READING_PER_IP": "16", "MSGSVC_SMTP_MAX_SESSIONS_PER_IP": "500"}
	if cfg, err = loadConfig(get); err != nil || cfg.Live.SMTP.DataTimeout != 90*time.Second || cfg.Live.SMTP.ReadingPerIP != 16 ||
		cfg.Live.SMTP.SessionsPerIP != 500 {
		t.Fatalf("set: %+v %v", cfg.Live.SMTP, err)
	}
	for name, bad := range map[string]string{"MSGSVC_SMTP_DATA_TIMEOUT": "0s", "MSGSVC_SMTP_MAX_READING_PER_IP": "17",
		"MSGSVC_SMTP_MAX_SESSIONS_PER_IP": "0"} {
		env = map[string]string{name: bad}
		if _, err := loadConfig(get); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, bad, err)
		}
	}
}
