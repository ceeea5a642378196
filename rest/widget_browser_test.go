package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// chromiumPath is Debian's chromium, or "" when none is installed.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

const shadow = `document.querySelector("#msgsvc-widget").shadowRoot`

// TestWidgetInChromium embeds /widget.js on a page of an allowed origin in
// real headless Chromium: the visitor opens the panel with the keyboard and
// writes, the test answers through POST /v1/messages, the reply appears (as
// text), is marked read, and survives a reload. A screenshot of the open
// widget is kept in testdata/artifacts (ignored by git).
func TestWidgetInChromium(t *testing.T) {
	repotest.SkipShort(t, "a browser (Chromium)")
	browser := chromiumPath()
	if browser == "" {
		t.Skip("no Chromium installed (apt-get install chromium); the widget's browser test needs it")
	}
	var apiURL string
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Acme</title>
<style>* { color: red !important; display: inline !important }</style></head>
<body><h1>Acme shop</h1><script src="%s/widget.js" data-website="web_main" async></script></body></html>`, apiURL)
	}))
	t.Cleanup(page.Close)
	a := widgetAPI(t, 30, time.Second)
	apiURL = a.HTTP.URL
	if _, err := a.Store.DB.ExecContext(t.Context(), `UPDATE websites SET domains = domains || $1 WHERE id = 'web_main'`,
		pq.StringArray{page.URL}); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1024, 768))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 120*time.Second)
	defer cancelTimeout()

	launcher := chromedp.JSPath(shadow + `.querySelector(".launcher")`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(page.URL),
		chromedp.WaitVisible(launcher),
		// Keyboard only: focus the launcher and press Enter.
		chromedp.Focus(launcher),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.JSPath(shadow+`.querySelector("#msgsvc-panel")`)),
	)
	if err != nil {
		t.Fatalf("open the widget: %v", err)
	}
	expanded, err := chromedp.Run(ctx, chromedp.AttributeValue(launcher, "aria-expanded"))
	if err != nil || expanded.Value != "true" {
		t.Errorf("launcher aria-expanded %+v after opening (%v)", expanded, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](shadow+`.querySelector(".log").textContent.includes("Hi! Ask us anything.")`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the website's greeting: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.JSPath(shadow+`.querySelector("#msgsvc-input")`), "Hello from Chromium\r")); err != nil {
		t.Fatalf("write: %v", err)
	}

	convID := waitVisitorChat(t, a, "Hello from Chromium")
	reply := "Reply <b>from</b> the test <img src=x onerror=alert(1)>"
	sent := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": convID, "text": reply}), 201, "").Data()

	shown := fmt.Sprintf(`[...%s.querySelectorAll(".msg.out")].some(e => e.textContent.includes(%q))`, shadow, reply)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](shown, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the reply in the page: %v", err)
	}
	htmlElements, err := chromedp.Run(ctx, chromedp.Evaluate[int](shadow+`.querySelectorAll(".log b, .log img").length`))
	if err != nil || htmlElements != 0 {
		t.Errorf("the reply was rendered as HTML (%d elements, %v)", htmlElements, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	keepArtifact(t, "widget-open.jpg", shot)
	// The panel is open: the widget reports the reply read.
	waitWidgetStatus(a, sent["id"].(string), "read")

	// A reload keeps the visitor (visitor_token in localStorage) and its chat.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload: %v", err)
	}
	history := fmt.Sprintf(`(() => { const h = document.querySelector("#msgsvc-widget"); if (!h) return false;
		const t = h.shadowRoot.querySelector(".log").textContent; return t.includes("Hello from Chromium") && t.includes(%q) })()`, reply)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](history, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("history after a reload: %v", err)
	}
}

// waitVisitorChat waits for a visitor's live message and returns its chat.
func waitVisitorChat(t *testing.T, a *resttest.API, text string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ids []string
		err := a.Store.DB.SelectContext(t.Context(), &ids, `SELECT conversation_id FROM messages
			WHERE text = $1 AND channel = 'website' AND livemode AND direction = 'inbound' AND sender_type = 'visitor'`, text)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == 1 {
			return ids[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the visitor's message %q never arrived (%d found)", text, len(ids))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// keepArtifact writes a test artifact under testdata/artifacts (ignored by
// git), so a run leaves it to look at.
func keepArtifact(t *testing.T, name string, b []byte) {
	dir := filepath.Join("testdata", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	t.Logf("screenshot of the open widget: %s", abs)
}
