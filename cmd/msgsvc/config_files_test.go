package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/seal"
)

// secretFile writes value to a file of the test and returns its path.
func secretFile(t *testing.T, value string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEverySecretIsReadFromAFile(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	sealed, err := func() (string, error) {
		k, err := seal.New(key, "")
		if err != nil {
			return "", err
		}
		return k.Seal([]byte("token"), "row")
	}()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, value string
		got         func(*Config) string
	}{
		{"MSGSVC_SECRET", "a-secret-from-a-file", func(c *Config) string { return c.Secret }},
		{"MSGSVC_ADMIN_TOKEN", "admin-token-from-a-file", func(c *Config) string { return c.AdminToken }},
		{"DATABASE_URL", "postgres://msgsvc:pw@db:5432/msgsvc", func(c *Config) string { return c.DatabaseURL }},
		{"REDIS_URL", "redis://:pw@redis:6379/0", func(c *Config) string { return c.RedisURL }},
		{"MSGSVC_META_APP_SECRET", "meta-app-secret", func(c *Config) string { return c.Live.MetaAppSecret }},
		{"MSGSVC_META_VERIFY_TOKEN", "meta-verify-token", func(c *Config) string { return c.Live.MetaVerifyToken }},
		{"MSGSVC_AI_API_KEY", "sk-ai-key", func(c *Config) string { return c.Live.AIAPIKey }},
		{"MSGSVC_SMTP_RELAY", "smtp://user:pw@relay:587", func(c *Config) string { return c.Live.SMTPRelay.String() }},
		{"MSGSVC_ENCRYPTION_KEY", key, func(c *Config) string {
			if got, err := c.Seal.Open(sealed, "row"); err != nil || string(got) != "token" {
				return "a key that does not open a value sealed with it"
			}
			return key
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A file's trailing line break (echo, kubectl create secret) is not
			// part of the value.
			c, err := loadConfig(env(map[string]string{tc.name + "_FILE": secretFile(t, tc.value+"\r\n")}))
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.got(c); got != tc.value {
				t.Errorf("%s_FILE gave %q, want %q", tc.name, got, tc.value)
			}
		})
	}
}

func TestSecretFileErrors(t *testing.T) {
	path := secretFile(t, "a-secret-from-a-file")
	_, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-secret-in-the-environment", "MSGSVC_SECRET_FILE": path}))
	if err == nil || err.Error() != "MSGSVC_SECRET and MSGSVC_SECRET_FILE are both set; set only one" {
		t.Errorf("both set: %v", err)
	}
	// An unreadable file is the error, not what its missing value leads to
	// (production without a secret).
	missing := filepath.Join(t.TempDir(), "absent")
	_, err = loadConfig(env(map[string]string{"MSGSVC_ENV": "production", "MSGSVC_SECRET_FILE": missing}))
	if err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_SECRET_FILE: open "+missing) {
		t.Errorf("missing file: %v", err)
	}
	empty := secretFile(t, "\n")
	if _, err := loadConfig(env(map[string]string{"DATABASE_URL_FILE": empty})); err == nil || err.Error() != "DATABASE_URL_FILE: "+empty+" is empty" {
		t.Errorf("empty file: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "a-secret") {
		t.Errorf("the error shows a secret: %v", err)
	}
}

func TestProductionNeedsAnHTTPSPublicURL(t *testing.T) {
	prod := map[string]string{"MSGSVC_ENV": "production", "MSGSVC_SECRET": "a-production-secret"}
	with := func(url string) map[string]string {
		m := map[string]string{"MSGSVC_PUBLIC_URL": url}
		for k, v := range prod {
			m[k] = v
		}
		return m
	}
	for name, vars := range map[string]map[string]string{"unset": prod, "http": with("http://chat.example.com")} {
		if _, err := loadConfig(env(vars)); err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_PUBLIC_URL:") {
			t.Errorf("%s: %v, want an error naming MSGSVC_PUBLIC_URL", name, err)
		}
	}
	c, err := loadConfig(env(with("https://chat.example.com/")))
	if err != nil || c.PublicURL != "https://chat.example.com" {
		t.Fatalf("https: %+v, %v", c, err)
	}
	// Outside production the listen address stays the default.
	if c, err := loadConfig(env(map[string]string{"MSGSVC_PUBLIC_URL": "http://127.0.0.1:9000"})); err != nil || c.PublicURL != "http://127.0.0.1:9000" {
		t.Fatalf("development: %+v, %v", c, err)
	}
}
