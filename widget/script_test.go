package widget

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

type harnessRun struct {
	Fetches []string `json:"fetches"`
	Timers  int      `json:"timers"`
	Notes   []string `json:"notes"`
	Errors  []string `json:"errors"`
}

// runWidget runs static/widget.js in Node (testdata/harness.js) against an
// API answering every request with status and body.
func runWidget(t *testing.T, status, body string) harnessRun {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no Node.js installed; the widget's script test needs it")
	}
	raw, err := exec.CommandContext(t.Context(), node, "testdata/harness.js", "static/widget.js", status, body).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var out harnessRun
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("harness output %q: %v", raw, err)
	}
	return out
}

// A refusal (here a website id of no website) is shown in the chat and the
// console with its message and code, and not retried.
func TestWidgetShowsARefusalAndStops(t *testing.T) {
	out := runWidget(t, "400", `{"error":{"code":"invalid_request","message":"website_id web_nope names no website.","request_id":"req_1"}}`)
	want := "The chat could not start: website_id web_nope names no website. (invalid_request)"
	if !slices.Contains(out.Notes, want) {
		t.Errorf("notes %q, want %q", out.Notes, want)
	}
	if len(out.Errors) != 1 || !strings.Contains(out.Errors[0], want) {
		t.Errorf("console errors %q", out.Errors)
	}
	if !slices.Equal(out.Fetches, []string{"POST http://api.test/widget/v1/sessions"}) || out.Timers != 0 {
		t.Errorf("after a 400: fetches %q, %d retries scheduled", out.Fetches, out.Timers)
	}
}

// An outage is retried quietly: no note, one reconnect scheduled.
func TestWidgetRetriesAnOutage(t *testing.T) {
	for _, status := range []string{"503", "429"} {
		out := runWidget(t, status, `{"error":{"code":"service_unavailable","message":"down","request_id":"req_1"}}`)
		if out.Timers != 1 || len(out.Notes) != 0 || len(out.Errors) != 0 {
			t.Errorf("after a %s: %d retries scheduled, notes %q, errors %q", status, out.Timers, out.Notes, out.Errors)
		}
	}
}
