package logging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestJSONOneObjectPerLineAndRedacted(t *testing.T) {
	var buf bytes.Buffer
	log := New("json", &buf, slog.LevelInfo)
	log.Info("request", "request_id", "req_1", "access_token", "EAAGsecret", "text", "hello Dana",
		slog.Group("provider", "api_key", "sk-123", "status", 200))
	log.Debug("hidden at info")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line, got %q", buf.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatal(err)
	}
	if m["msg"] != "request" || m["request_id"] != "req_1" || m["access_token"] != Redacted || m["text"] != Redacted {
		t.Fatalf("line %v", m)
	}
	if p := m["provider"].(map[string]any); p["api_key"] != Redacted || p["status"] != float64(200) {
		t.Fatalf("group %v", p)
	}
	for _, leak := range []string{"EAAGsecret", "hello Dana", "sk-123"} {
		if strings.Contains(buf.String(), leak) {
			t.Fatalf("%q leaked: %s", leak, buf.String())
		}
	}
}

func TestTextFormat(t *testing.T) {
	var buf bytes.Buffer
	New("text", &buf, slog.LevelInfo).Info("job", "type", "webhook:deliver", "secret", "whsec_x")
	out := buf.String()
	if !strings.Contains(out, "msg=job") || !strings.Contains(out, "type=webhook:deliver") || strings.Contains(out, "whsec_x") {
		t.Fatalf("text line %q", out)
	}
}

func TestSensitive(t *testing.T) {
	for key, want := range map[string]bool{"access_token": true, "MSGSVC_SECRET": true, "Authorization": true,
		"html_raw": true, "request_id": false, "workspace": false, "route": false, "status": false, "err": false} {
		for range 2 { // the second answer is the one kept
			if Sensitive(key) != want {
				t.Errorf("Sensitive(%q) = %v", key, !want)
			}
		}
	}
	// Past the names kept, answers are worked out each time, as right.
	for i := range 2 * maxKnownKeys {
		key, want := fmt.Sprintf("field_%d", i), i%2 == 0
		if want {
			key += "_token"
		}
		for range 2 { // worked out, then (within the bound) kept
			if Sensitive(key) != want {
				t.Fatalf("Sensitive(%q) = %v", key, !want)
			}
		}
	}
}
