package instagram_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// An attachment on an https host (here the Instagram Graph host itself,
// which the operator trusts) whose answer redirects to plain http is not
// followed: a redirect goes to https only, and the plain server gets no
// request.
func TestDownloadAttachmentRefusesRedirectToHTTP(t *testing.T) {
	var plainHits atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write([]byte("\xff\xd8\xff\xe0jpeg"))
	}))
	t.Cleanup(plain.Close)
	host := httptest.NewTLSServer(http.RedirectHandler(plain.URL+"/a.jpg", http.StatusFound))
	t.Cleanup(host.Close)
	a := instagram.New(meta.Config{InstagramURL: host.URL, GraphURL: "https://graph.facebook.invalid", Timeout: 2 * time.Second})
	_, err := a.DownloadAttachment(context.Background(), igLogin().Provider, "image", host.URL+"/ig_messaging_cdn/?asset_id=1")
	if err == nil || !strings.Contains(err.Error(), "msgsvc refused to follow a redirect to a URL that is not https://") || plainHits.Load() != 0 {
		t.Fatalf("got %v, %d plain requests; want the redirect to http refused", err, plainHits.Load())
	}
}
