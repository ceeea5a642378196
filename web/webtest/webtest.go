// Package webtest drives the web app (package web) in headless Chromium for
// browser tests: the API of resttest with webhook workers, an SMTP sink the
// sign-in codes are read from, pages found and used by role and accessible
// name (app.md section 5, through Chromium's accessibility tree), axe-core on
// every page, and the page's CSP violations and uncaught errors as failures.
package webtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// Chromium is the path of Debian's chromium. Without one the test is
// skipped with a message on a developer's machine, and fails in CI (CI=true),
// where .ci/services installs it.
func Chromium(t testing.TB) string {
	t.Helper()
	repotest.SkipShort(t, "a browser (Chromium)")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium installed, and CI=true: the app's browser tests must run in CI (.ci/services installs chromium)")
	}
	t.Skip("no Chromium installed (apt-get install chromium); the app's browser tests need it")
	return ""
}

// App is the API with webhook workers, the web app at /app/, and an SMTP
// sink as the relay the sign-in codes go through.
type App struct {
	*resttest.World
	Sink *emailtest.Sink

	mu   sync.Mutex
	used map[string]int // mails already read per address
}

// New starts the app over a fresh seeded database. Its clock follows real
// time (the browser's), starting now; configure hooks run as resttest.New's.
func New(t testing.TB, configure ...func(*resttest.API)) *App {
	t.Helper()
	repotest.NeedsPostgres(t)
	sink := emailtest.NewSink().Start(t)
	cfg := resttest.WebhookConfig()
	w := resttest.NewWorld(t, cfg, append([]func(*resttest.API){func(a *resttest.API) {
		if a.Config.Adapters == nil {
			a.Config.Adapters = map[string]channels.Adapter{}
		}
		a.Config.Adapters["email"] = &email.Adapter{Relay: &email.Relay{Addr: sink.Addr, TLS: email.None},
			Now: a.Clock.Now, Timeout: 5 * time.Second}
	}}, configure...)...)
	followRealTime(t, w.Clock)
	return &App{World: w, Sink: sink, used: map[string]int{}}
}

// followRealTime keeps the test clock at the wall clock's time until the
// test ends: the browser's timers and the server's rules agree.
func followRealTime(t testing.TB, c *resttest.Clock) {
	c.Set(time.Now())
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				c.Set(now)
			}
		}
	}()
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// Code waits (15 s) for the next mail to address holding a 6-digit code
// and returns the code.
func (a *App) Code(t testing.TB, address string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if a.Resolver.Notices != nil {
			_ = a.Resolver.Notices.SendNotices(t.Context())
		}
		a.mu.Lock()
		seen := 0
		for _, m := range a.Sink.Mails() {
			if !sentTo(m, address) {
				continue
			}
			seen++
			if seen <= a.used[address] {
				continue
			}
			a.used[address] = seen
			a.mu.Unlock()
			if c := sixDigits.FindStringSubmatch(body(m.Data)); c != nil {
				return c[1]
			}
			t.Fatalf("the mail to %s holds no 6-digit code:\n%s", address, m.Data)
		}
		a.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no mail with a code reached %s in 15 s (%d mails in the sink)", address, len(a.Sink.Mails()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sentTo(m emailtest.Mail, address string) bool {
	for _, to := range m.To {
		if strings.EqualFold(to, address) {
			return true
		}
	}
	return false
}

// body is a mail's text after its headers (soft line breaks of
// quoted-printable joined), enough to find a code in.
func body(data []byte) string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[i+2:]
	}
	return strings.ReplaceAll(s, "=\n", "")
}

// axeSource is the vendored axe-core (testdata/vendor/axe-core).
var axeSource = sync.OnceValue(func() string {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", "vendor", "axe-core", "axe.min.js"))
	if err != nil {
		panic("webtest: the vendored axe-core is missing: " + err.Error())
	}
	return string(b)
})

// Browser is one headless Chromium process; each Person in it has her own
// cookies (a browser context of her own) and tab.
type Browser struct {
	t    testing.TB
	app  *App
	base string
	root context.Context
}

// Browser starts headless Chromium for the test, on the app's server.
func (a *App) Browser(t testing.TB) *Browser {
	t.Helper()
	b := NewBrowser(t, a.HTTP.URL)
	b.app = a
	return b
}

// NewBrowser starts headless Chromium for pages of base (a server of the
// test's own, such as one that stands in for the API); SignIn needs App.Browser.
func NewBrowser(t testing.TB, base string) *Browser {
	t.Helper()
	path := Chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	// The browser starts with its first tab; each person gets a browser
	// context (cookies) of her own beside it.
	root, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("webtest: start Chromium: %v", err)
	}
	return &Browser{t: t, base: base, root: root}
}

// artifactDir is where screenshots go (testdata/artifacts of the test's
// package, ignored by git).
func keepArtifact(t testing.TB, name string, b []byte) {
	dir := filepath.Join("testdata", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
