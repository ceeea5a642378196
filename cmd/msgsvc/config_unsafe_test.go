package main

import (
	"strings"
	"testing"
)

// TestProductionRefusesUnsafeSwitches: production refuses the development
// switches and short admin tokens, naming the variable and never the value.
func TestProductionRefusesUnsafeSwitches(t *testing.T) {
	prod := func(extra map[string]string) map[string]string {
		vars := map[string]string{"MSGSVC_ENV": "production", "MSGSVC_SECRET": "a-production-secret",
			"MSGSVC_PUBLIC_URL": "https://chat.example.com"}
		for k, v := range extra {
			vars[k] = v
		}
		return vars
	}
	long := strings.Repeat("k", 32)
	for _, tc := range []struct {
		name    string
		vars    map[string]string
		refused string // the variable the error names; "" starts
		secret  string // a value the error must not show
	}{
		{"insecure webhooks", prod(map[string]string{"MSGSVC_WEBHOOK_ALLOW_INSECURE": "true"}), "MSGSVC_WEBHOOK_ALLOW_INSECURE", ""},
		{"one-character admin token", prod(map[string]string{"MSGSVC_ADMIN_TOKEN": "x"}), "MSGSVC_ADMIN_TOKEN", ""},
		{"31-character admin token", prod(map[string]string{"MSGSVC_ADMIN_TOKEN": "s3cr3t-admin-" + strings.Repeat("z", 18)}), "MSGSVC_ADMIN_TOKEN", "s3cr3t-admin-"},
		{"32-character admin token", prod(map[string]string{"MSGSVC_ADMIN_TOKEN": long}), "", ""},
		{"no admin token", prod(nil), "", ""},
		{"insecure off", prod(map[string]string{"MSGSVC_WEBHOOK_ALLOW_INSECURE": "false"}), "", ""},
		{"development keeps both", map[string]string{"MSGSVC_WEBHOOK_ALLOW_INSECURE": "true", "MSGSVC_ADMIN_TOKEN": "x"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadConfig(env(tc.vars))
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.refused+":")):
				t.Fatalf("error %v, want one naming %s", err, tc.refused)
			case tc.secret != "" && strings.Contains(err.Error(), tc.secret):
				t.Fatalf("error shows the value: %v", err)
			}
		})
	}
}

// TestDBMaxConnsBelowStartupNeed: a pool smaller than the start-up check
// holds at once would wait for ever; it is refused with the reason.
func TestDBMaxConnsBelowStartupNeed(t *testing.T) {
	for _, n := range []string{"1", "2", "3"} {
		_, err := loadConfig(env(map[string]string{"MSGSVC_DB_MAX_CONNS": n}))
		if err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_DB_MAX_CONNS:") || !strings.Contains(err.Error(), "at least 4") {
			t.Errorf("MSGSVC_DB_MAX_CONNS=%s: %v", n, err)
		}
	}
	if c, err := loadConfig(env(map[string]string{"MSGSVC_DB_MAX_CONNS": "4"})); err != nil || c.DBMaxConns != 4 {
		t.Errorf("MSGSVC_DB_MAX_CONNS=4: %v", err)
	}
}

func TestBodyTimeoutSetting(t *testing.T) {
	if c, err := loadConfig(env(nil)); err != nil || c.BodyTimeout.Seconds() != 60 {
		t.Errorf("default: %v, %v", c, err)
	}
	if c, err := loadConfig(env(map[string]string{"MSGSVC_HTTP_BODY_TIMEOUT": "5s"})); err != nil || c.BodyTimeout.Seconds() != 5 {
		t.Errorf("5s: %v", err)
	}
	for _, v := range []string{"0s", "soon", "-1s"} {
		if _, err := loadConfig(env(map[string]string{"MSGSVC_HTTP_BODY_TIMEOUT": v})); err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_HTTP_BODY_TIMEOUT:") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
