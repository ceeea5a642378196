package web_test

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/web"
)

// BudgetBytes is the whole app's size budget (app.md 4): every JS and CSS
// file, lazy chunks included, each gzipped at level 9.
const BudgetBytes = 150 << 10

// GzippedSizes returns each JS and CSS file of the build gzipped (-9).
func gzippedSizes(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := fs.WalkDir(web.Dist(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := path.Ext(p); ext != ".js" && ext != ".css" {
			return nil
		}
		b, err := fs.ReadFile(web.Dist(), p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		out[p] = buf.Len()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppSizeBudget(t *testing.T) {
	sizes := gzippedSizes(t)
	total, js, css := 0, 0, 0
	for p, n := range sizes {
		total += n
		if strings.HasSuffix(p, ".js") {
			js++
		} else {
			css++
		}
		t.Logf("%-40s %7d bytes gzipped", p, n)
	}
	if js < 2 || css < 1 {
		t.Fatalf("the build has %d JS and %d CSS files; want the main entry, its lazy chunks and a stylesheet", js, css)
	}
	t.Logf("total %d bytes gzipped (budget %d)", total, BudgetBytes)
	if total > BudgetBytes {
		t.Errorf("the app is %d bytes gzipped, over the budget of %d (150 KiB)", total, BudgetBytes)
	}
}

func TestHandler(t *testing.T) {
	h := web.Handler()
	get := func(p string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		return w
	}
	index := get("/app/inbox/conv_1")
	if index.Code != 200 || index.Header().Get("Cache-Control") != "no-store" ||
		!strings.Contains(index.Body.String(), `<div id="app">`) {
		t.Fatalf("an app route: %d %q %.80q", index.Code, index.Header().Get("Cache-Control"), index.Body.String())
	}
	csp := index.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self';", "style-src 'self';", "connect-src 'self';",
		"frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP allows something unsafe: %q", csp)
	}
	// index.html has no inline script or style: every <script> has a src.
	body := index.Body.String()
	if strings.Contains(body, "<style") || strings.Contains(body, "style=") || strings.Count(body, "<script") != strings.Count(body, "<script type=\"module\" src=") {
		t.Errorf("index.html has inline script or style:\n%s", body)
	}

	var asset string
	_ = fs.WalkDir(web.Dist(), "assets", func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".js") && asset == "" {
			asset = p
		}
		return err
	})
	a := get("/app/" + asset)
	if a.Code != 200 || !strings.Contains(a.Header().Get("Cache-Control"), "immutable") ||
		!strings.HasPrefix(a.Header().Get("Content-Type"), "text/javascript") {
		t.Errorf("asset %s: %d %q %q", asset, a.Code, a.Header().Get("Cache-Control"), a.Header().Get("Content-Type"))
	}
	if a.Header().Get("Content-Security-Policy") == "" {
		t.Error("an asset without the CSP")
	}
	if w := get("/app/assets/missing-ABC.js"); w.Code != 404 {
		t.Errorf("a missing asset answered %d, want 404", w.Code)
	}
	if w := get("/app/assets/../index.html"); w.Code == 200 && w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("a path out of assets/ served with a long cache")
	}
	if w := get("/app"); w.Code != http.StatusFound || w.Header().Get("Location") != "/app/" {
		t.Errorf("/app: %d %q", w.Code, w.Header().Get("Location"))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/app/inbox", nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /app/inbox: %d", w.Code)
	}
}
