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
