package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// demoAPI serves docs/demo-workspace.json with website chat, as make run does.
func demoAPI(t *testing.T, demo bool) *resttest.API {
	return resttest.New(t, func(a *resttest.API) {
		f, err := os.Open("../docs/demo-workspace.json")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fixture, err := seed.ParseFixture(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := (&seed.Seeder{Store: a.Store, Clock: a.Clock.Now}).Seed(t.Context(), fixture); err != nil {
			t.Fatal(err)
		}
		a.Server.Widget = startWidget(t, a, 30, time.Second)
		a.Server.Demo = demo
		key, err := seal.New("", "test-secret-0123456789")
		if err != nil {
			t.Fatal(err)
		}
		a.Config.Seal = key
	})
}

// The README's "Connect a WhatsApp number" request, as written, connects the
// demo workspace's number.
func TestReadmeConnectsAWhatsAppNumber(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.Contains(line, "connectChannelAccount") && strings.Contains(line, "-d '") {
			body = line[strings.Index(line, "-d '")+4 : strings.LastIndex(line, "'")]
		}
	}
	if !strings.Contains(body, `'"$META_TOKEN"'`) || strings.ContainsFunc(body, func(r rune) bool { return r > 127 }) {
		t.Fatalf("the README's request is not what this test runs: %q", body)
	}
	body = strings.ReplaceAll(body, `'"$META_TOKEN"'`, "EAAGexampleAccessToken")
	a := demoAPI(t, true)
	var out map[string]any
	if err := json.Unmarshal([]byte(body), new(any)); err != nil {
		t.Fatalf("not JSON once the shell has run: %v\n%s", err, body)
	}
	req, _ := http.NewRequest("POST", a.HTTP.URL+"/graphql", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Msgsvc-Workspace", "ws_demo")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&out)
	data, _ := out["data"].(map[string]any)
	conn, _ := data["connectChannelAccount"].(map[string]any)
	if resp.StatusCode != 200 || conn["connected"] != true || conn["status"] != "connected" {
		t.Errorf("%d %v", resp.StatusCode, out)
	}
}

// make run's /demo embeds the demo website's widget, and the demo website
// lets that page's origin (the address make run serves on) open a chat.
func TestDemoPageOpensAChat(t *testing.T) {
	t.Parallel()
	a := demoAPI(t, true)
	resp, err := http.Get(a.HTTP.URL + "/demo")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page), `<script src="/widget.js" data-website="`+rest.DemoWebsite+`" async>`) {
		t.Fatalf("/demo: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	// The page's origin when make run serves on its default MSGSVC_ADDR.
	r := a.Want(visitorDo(a, "POST", "/widget/v1/sessions", "http://127.0.0.1:8080", "",
		map[string]any{"website_id": rest.DemoWebsite}), 200, "")
	if r.Data()["visitor_token"] == nil {
		t.Errorf("session %v", r.Body)
	}
	// Another origin is still refused, with the code the widget shows.
	a.Want(visitorDo(a, "POST", "/widget/v1/sessions", "http://127.0.0.1:9999", "",
		map[string]any{"website_id": rest.DemoWebsite}), 403, "website_not_allowed")
}

// Production serves no demo page.
func TestNoDemoPageInProduction(t *testing.T) {
	t.Parallel()
	a := demoAPI(t, false)
	a.Want(a.Do("GET", "/demo", "", nil), 404, "route_not_found")
}
