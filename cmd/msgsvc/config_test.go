package main

import (
	"encoding/base64"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.WebhookTimeout != 10*time.Second || c.WebhookGiveUpAfter != 72*time.Hour ||
		c.SandboxDeliveryDelay != 2*time.Second || c.EventRetention != 720*time.Hour || c.WebhookAllowInsecure ||
		c.Queue != "msgsvc" || c.Production || c.DBMaxConns != 40 || len(c.TrustedProxies) != 0 ||
		!c.DBPrepare {
		t.Errorf("defaults %+v", c)
	}
	want := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour}
	if !reflect.DeepEqual(c.WebhookRetrySchedule, want) {
		t.Errorf("retry schedule %v", c.WebhookRetrySchedule)
	}
	if !c.SecretGenerated || len(c.Secret) < 32 {
		t.Errorf("generated secret %q", c.Secret)
	}
}

func TestConfigValues(t *testing.T) {
	c, err := loadConfig(env(map[string]string{
		"MSGSVC_WEBHOOK_RETRY_SCHEDULE": "1s, 2s,3s", "MSGSVC_WEBHOOK_ALLOW_INSECURE": "true",
		"MSGSVC_EGRESS_IPS": "203.0.113.10,203.0.113.11", "MSGSVC_SECRET": "conformance-secret-0123456789",
		"MSGSVC_DB_MAX_CONNS": "12", "MSGSVC_DB_PREPARE": "false", "MSGSVC_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.WebhookRetrySchedule, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}) ||
		!c.WebhookAllowInsecure || len(c.EgressIPs) != 2 || c.SecretGenerated || c.DBMaxConns != 12 ||
		c.DBPrepare || len(c.TrustedProxies) != 2 || !c.TrustedProxies.Trusts(netip.MustParseAddr("fd00::1")) {
		t.Errorf("config %+v", c)
	}
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	cases := map[string]string{
		"MSGSVC_ADDR":                   "8080",
		"MSGSVC_WEBHOOK_ALLOW_INSECURE": "maybe",
		"MSGSVC_WEBHOOK_RETRY_SCHEDULE": "1m,soon",
		"MSGSVC_WEBHOOK_GIVE_UP_AFTER":  "3 days",
		"MSGSVC_WEBHOOK_TIMEOUT":        "-1s",
		"MSGSVC_SANDBOX_DELIVERY_DELAY": "two",
		"MSGSVC_EGRESS_IPS":             "203.0.113.10,not-an-ip",
		"MSGSVC_EVENT_RETENTION":        "30d",
		"MSGSVC_SECRET":                 "short",
		"MSGSVC_QUEUE":                  "a{b}",
		"MSGSVC_DB_MAX_CONNS":           "0",
		"MSGSVC_DB_PREPARE":             "sometimes",
		"MSGSVC_TRUSTED_PROXIES":        "10.0.0.0/8,10.0.0.0/40",
		"MSGSVC_ENV":                    "Production",
	}
	for name, value := range cases {
		_, err := loadConfig(env(map[string]string{name: value}))
		if err == nil || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s=%q: got %v, want an error naming %s", name, value, err, name)
		}
	}
	for _, dsn := range []string{"postgres://msgsvc:s3cret-pw@db:port/msgsvc", "postgres://msgsvc:s3cret-pw@db/msgsvc?sslmode=bogus"} {
		_, err := loadConfig(env(map[string]string{"DATABASE_URL": dsn}))
		if err == nil || !strings.HasPrefix(err.Error(), "DATABASE_URL:") || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("DATABASE_URL=%q: got %v, want an error naming DATABASE_URL without the password", dsn, err)
		}
	}
	if _, err := loadConfig(env(map[string]string{"MSGSVC_ENV": "production"})); err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_SECRET:") {
		t.Errorf("production without a secret: %v", err)
	}
}

func TestSecretAndKeyLists(t *testing.T) {
	c, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "the-new-secret-0123, the-old-secret-0123"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Secret != "the-new-secret-0123" || len(c.PreviousSecrets) != 1 || c.PreviousSecrets[0] != "the-old-secret-0123" {
		t.Errorf("secret %q, previous %q", c.Secret, c.PreviousSecrets)
	}
	// Unset, the key is derived from the secrets: the first one's seals,
	// the others' open.
	old, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "the-old-secret-0123"}))
	if err != nil {
		t.Fatal(err)
	}
	sealed, _ := old.Seal.Seal([]byte("token"), "row")
	if got, err := c.Seal.Open(sealed, "row"); err != nil || string(got) != "token" {
		t.Errorf("a value of the old secret's key: %q, %v", got, err)
	}
	// Values sealed before MSGSVC_ENCRYPTION_KEY was set still open.
	withKey, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "the-old-secret-0123", "MSGSVC_ENCRYPTION_KEY": key32('n')}))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := withKey.Seal.Open(sealed, "row"); err != nil || string(got) != "token" {
		t.Errorf("a value of the derived key once MSGSVC_ENCRYPTION_KEY is set: %q, %v", got, err)
	}
	for name, vars := range map[string]map[string]string{
		"MSGSVC_SECRET: secret 2 of the list":              {"MSGSVC_SECRET": "the-new-secret-0123,short"},
		"MSGSVC_ENCRYPTION_KEY: key 2 of the list":         {"MSGSVC_ENCRYPTION_KEY": key32('n') + ",not-base64!"},
		"MSGSVC_ENCRYPTION_KEY: key 1 of the list":         {"MSGSVC_ENCRYPTION_KEY": "," + key32('n')},
		"MSGSVC_ENCRYPTION_KEY: seal: the key is 16 bytes": {"MSGSVC_ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(make([]byte, 16))},
	} {
		if _, err := loadConfig(env(vars)); err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("%v: %v, want %s…", vars, err, name)
		}
	}
}
