package main

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestLiveConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Live
	if l.MetaGraphURL != "https://graph.facebook.com" || l.InstagramGraphURL != "https://graph.instagram.com" ||
		l.MetaAPIVersion != "v24.0" || l.ProviderTimeout != 15*time.Second || l.TemplateSyncEvery != 15*time.Minute ||
		l.SMTPRelay != nil || l.SMTPAddr != "" || l.SMTPHostname != "[127.0.0.1]" || l.AIURL != "" ||
		l.WidgetRateLimit != 30 || l.MetricsAddr != "127.0.0.1:9464" || l.LogFormat != "text" || l.WhatsAppPace != 0 {
		t.Errorf("defaults %+v", l)
	}
	sealed, err := c.Seal.Seal([]byte("token"), "row")
	if err != nil {
		t.Fatalf("the key derived from MSGSVC_SECRET does not seal: %v", err)
	}
	if got, err := c.Seal.Open(sealed, "row"); err != nil || string(got) != "token" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	prod, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-production-secret", "MSGSVC_ENV": "production",
		"MSGSVC_PUBLIC_URL": "https://chat.example.com"}))
	if err != nil || prod.Live.LogFormat != "json" || !prod.Production || c.Production {
		t.Fatalf("production log format %+v, %v; development is production: %v", prod, err, c.Production)
	}
}

func TestLiveConfigValues(t *testing.T) {
	c, err := loadConfig(env(map[string]string{
		"MSGSVC_META_GRAPH_URL": "http://127.0.0.1:9000/", "MSGSVC_SMTP_RELAY": "smtp://u:p@127.0.0.1:2526?tls=none",
		"MSGSVC_SMTP_ADDR": "127.0.0.1:2525", "MSGSVC_AI_URL": "http://127.0.0.1:11434/v1",
		"MSGSVC_ENCRYPTION_KEY":   base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 32))),
		"MSGSVC_PROVIDER_TIMEOUT": "2s", "MSGSVC_WIDGET_RATE_LIMIT": "5", "MSGSVC_LOG_FORMAT": "json",
		"MSGSVC_WHATSAPP_PACE": "80", "MSGSVC_WHATSAPP_THROUGHPUT": "1000", "MSGSVC_EMAIL_SEND_RATE": "14",
	}))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Live
	if l.MetaGraphURL != "http://127.0.0.1:9000" || l.SMTPRelay.Host != "127.0.0.1:2526" || l.SMTPAddr != "127.0.0.1:2525" ||
		l.AIURL != "http://127.0.0.1:11434/v1" || l.ProviderTimeout != 2*time.Second || l.WidgetRateLimit != 5 || l.LogFormat != "json" ||
		l.WhatsAppPace != 80 || l.WhatsAppThroughput != 1000 || l.InstagramSendRate != 10 || l.EmailSendRate != 14 {
		t.Errorf("values %+v", l)
	}
}

func TestLiveConfigErrorsNameTheVariable(t *testing.T) {
	for name, value := range map[string]string{
		"MSGSVC_META_GRAPH_URL":      "ftp://x",
		"MSGSVC_INSTAGRAM_GRAPH_URL": "not a url",
		"MSGSVC_AI_URL":              "localhost:11434",
		"MSGSVC_META_API_VERSION":    "24",
		"MSGSVC_PROVIDER_TIMEOUT":    "0s",
		"MSGSVC_TEMPLATE_SYNC_EVERY": "soon",
		"MSGSVC_SMTP_RELAY":          "smtps://host:465?tls=none",
		"MSGSVC_SMTP_ADDR":           "2525",
		"MSGSVC_METRICS_ADDR":        "nowhere",
		"MSGSVC_WIDGET_RATE_LIMIT":   "-1",
		"MSGSVC_LOG_FORMAT":          "xml",
		"MSGSVC_WHATSAPP_PACE":       "-1",
		"MSGSVC_WHATSAPP_THROUGHPUT": "0",
		"MSGSVC_INSTAGRAM_SEND_RATE": "fast",
		"MSGSVC_EMAIL_SEND_RATE":     "20000",
		"MSGSVC_ENCRYPTION_KEY":      base64.StdEncoding.EncodeToString([]byte("short")),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", name: value}))
			if err == nil || !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("err = %v, want one naming %s", err, name)
			}
		})
	}
	_, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", "MSGSVC_SMTP_RELAY": "smtp://user:hunter2@relay"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("a relay without a port: err = %v (must refuse without showing the password)", err)
	}
}

// MSGSVC_SMTP_HOSTNAME wins; without it the EHLO name is the public host
// (email.HelloName), never localhost.
func TestSMTPHostnameDefault(t *testing.T) {
	c, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", "MSGSVC_PUBLIC_URL": "https://api.example.com"}))
	if err != nil || c.Live.SMTPHostname != "api.example.com" {
		t.Fatalf("public host: %q, %v", c.Live.SMTPHostname, err)
	}
	c, err = loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", "MSGSVC_PUBLIC_URL": "https://api.example.com",
		"MSGSVC_SMTP_HOSTNAME": "mx.example.com"}))
	if err != nil || c.Live.SMTPHostname != "mx.example.com" {
		t.Fatalf("MSGSVC_SMTP_HOSTNAME set: %q, %v", c.Live.SMTPHostname, err)
	}
}

// MSGSVC_PROVIDER_UNKNOWN_AFTER: 15m by default, a positive duration, and
// the resolver's sends get it.
func TestProviderUnknownAfter(t *testing.T) {
	def, err := loadConfig(env(map[string]string{}))
	if err != nil || def.Live.ProviderUnknownAfter != 15*time.Minute {
		t.Fatalf("default %v, %v; want 15m", def.Live.ProviderUnknownAfter, err)
	}
	c, err := loadConfig(env(map[string]string{"MSGSVC_PROVIDER_UNKNOWN_AFTER": "90s"}))
	if err != nil || c.Live.ProviderUnknownAfter != 90*time.Second {
		t.Fatalf("90s read as %v, %v", c.Live.ProviderUnknownAfter, err)
	}
	for _, bad := range []string{"0s", "-1m", "soon"} {
		_, err := loadConfig(env(map[string]string{"MSGSVC_PROVIDER_UNKNOWN_AFTER": bad}))
		if err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_PROVIDER_UNKNOWN_AFTER:") {
			t.Errorf("%q: %v, want an error naming the variable", bad, err)
		}
	}
}

// TestURLSettingsDoNotShowPasswords: a refused URL setting names what is
// wrong without the password it may carry.
func TestURLSettingsDoNotShowPasswords(t *testing.T) {
	for _, v := range []string{"ftp://user:s3cret@ai.example.com/v1", "http://user:s3cret@[::1", "user:s3cret@ai.example.com"} {
		_, err := loadConfig(env(map[string]string{"MSGSVC_AI_URL": v}))
		if err == nil || !strings.Contains(err.Error(), "MSGSVC_AI_URL") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
