package files

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// imageServer is a stand-in image host: /n answers a PNG of n bytes; it
// counts the requests it gets.
func imageServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		size := map[string]int{"/small": 64, "/cap": MaxProxiedImage, "/over": MaxProxiedImage + 1}[r.URL.Path]
		_, _ = w.Write(append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, size-8)...))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// fetch follows an image proxy link through svc.Image.
func fetch(t *testing.T, svc *Service, link string) (*RemoteImage, error) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	return svc.Image(t.Context(), q.Get("url"), q.Get("expires"), q.Get("signature"))
}

// An image link works for one hour: then it is refused as file links are,
// and the remote server is not asked.
func TestImageLinkExpires(t *testing.T) {
	srv, calls := imageServer(t)
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	svc := &Service{Clock: func() time.Time { return now }, Secrets: signing.Secrets{"a-signing-secret-0123"}, ImageClient: srv.Client()}
	link := svc.ImageURL(srv.URL + "/small")
	now = now.Add(time.Hour - time.Second)
	if img, err := fetch(t, svc, link); err != nil || img.ContentType != "image/png" {
		t.Fatalf("within the hour: %v %v", img, err)
	}
	now = now.Add(time.Second)
	if _, err := fetch(t, svc, link); !isCode(err, apierr.FileLinkInvalid) {
		t.Fatalf("after the hour: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the remote server was asked %d times, want 1", n)
	}
}

// At most MaxProxiedImage bytes of an image are passed on.
func TestImageOverTheCapIsRefused(t *testing.T) {
	srv, _ := imageServer(t)
	svc := &Service{Clock: time.Now, Secrets: signing.Secrets{"a-signing-secret-0123"}, ImageClient: srv.Client()}
	if img, err := fetch(t, svc, svc.ImageURL(srv.URL+"/cap")); err != nil || len(img.Content) != MaxProxiedImage {
		t.Fatalf("an image of the cap: %v", err)
	}
	_, err := fetch(t, svc, svc.ImageURL(srv.URL+"/over"))
	if !isCode(err, apierr.ImageUnavailable) || !strings.Contains(err.Error(), "over 5 MB") {
		t.Fatalf("an image over the cap: %v", err)
	}
}

// The proxy's own client follows at most 3 redirects (the guard judges
// each one's URL: graph/egress).
func TestGuardedClientRedirects(t *testing.T) {
	check := guardedClient().CheckRedirect
	to := func(raw string) *http.Request {
		u, _ := url.Parse(raw)
		return &http.Request{URL: u}
	}
	for _, c := range []struct {
		to   string
		via  int
		want bool
	}{{"https://a.test/x", 1, true}, {"https://a.test/x", 3, true}, {"https://a.test/x", 4, false}} {
		if got := check(to(c.to), make([]*http.Request, c.via)) == nil; got != c.want {
			t.Errorf("to %s after %d requests: followed %v, want %v", c.to, c.via, got, c.want)
		}
	}
}

func isCode(err error, code apierr.Code) bool {
	e, ok := apierr.As(err)
	return ok && e.Code == code
}
