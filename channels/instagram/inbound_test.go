package instagram_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

func TestOwns(t *testing.T) {
	ig, fb := igLogin().Provider, fbLogin().Provider
	cases := []struct {
		creds *channels.Credentials
		id    string
		want  bool
	}{
		{ig, igUserID, true},
		{ig, pageID, false},
		{fb, pageID, true},
		{fb, igUserID, true},
		{fb, "", false},
		{nil, igUserID, false},
		{&channels.Credentials{Login: "instagram", IGUserID: igUserID}, "17841400000000000", false},
	}
	for _, c := range cases {
		if got := instagram.Owns(c.creds, c.id); got != c.want {
			t.Errorf("Owns(%+v, %q) = %v", c.creds, c.id, got)
		}
	}
}

func TestDownloadable(t *testing.T) {
	for kind, want := range map[string]bool{"image": true, "video": true, "audio": true, "file": true,
		"share": false, "story_mention": false, "ig_reel": false, "": false} {
		if instagram.Downloadable(kind) != want {
			t.Errorf("Downloadable(%q) != %v", kind, want)
		}
	}
}

// A link on a Graph API host is fetched with the account's token, exactly
// as the stand-in serves media.
func TestDownloadAttachmentFromGraphHost(t *testing.T) {
	g, a := setup(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 64)...)
	g.AddMedia("att-1", png, "image/png", igToken, "")
	for _, base := range []string{g.Instagram.URL, g.Graph.URL} {
		got, err := a.DownloadAttachment(context.Background(), igLogin().Provider, "image", base+"/media-files/att-1")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Content, png) || got.ContentType != "image/png" || got.Filename != "image.png" {
			t.Fatalf("got %q %s %d bytes", got.Filename, got.ContentType, len(got.Content))
		}
	}
	reqs := g.Requests(nil)
	if len(reqs) != 2 || reqs[0].Method != http.MethodGet || reqs[0].Path != "/media-files/att-1" || reqs[0].Bearer() != igToken ||
		reqs[0].Host != metatest.HostInstagram || reqs[1].Host != metatest.HostMeta {
		t.Fatalf("requests %+v", reqs)
	}
}

// A CDN link (a host other than the Graph API's) gets no token; with the
// guarded client, a link off the Graph hosts that is plain http, or on a
// host that is not one of Meta's media hosts, is refused before any
// request.
func TestDownloadAttachmentFromCDN(t *testing.T) {
	var auth []string
	cdn := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write([]byte("\xff\xd8\xff\xe0jpeg"))
	}))
	t.Cleanup(cdn.Close)
	g := metatest.New(t)
	cfg := g.Config(2 * time.Second)
	cfg.HTTP = cdn.Client()
	a := instagram.New(cfg)
	got, err := a.DownloadAttachment(context.Background(), igLogin().Provider, "image", cdn.URL+"/ig_messaging_cdn/?asset_id=1&signature=s")
	if err != nil {
		t.Fatal(err)
	}
	if got.Filename != "image.jpg" || got.ContentType != "image/jpeg" || len(auth) != 1 || auth[0] != "" {
		t.Fatalf("got %q %s, authorization %q", got.Filename, got.ContentType, auth)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("plain http fetched: %s", r.URL)
	}))
	t.Cleanup(plain.Close)
	guarded := instagram.New(g.Config(2 * time.Second))
	for link, want := range map[string]string{
		plain.URL + "/a.jpg": "msgsvc refused to fetch a URL that is not https://",
		cdn.URL + "/a.jpg":   "msgsvc refused to fetch from 127.0.0.1, which is not one of Meta's media hosts",
	} {
		_, err := guarded.DownloadAttachment(context.Background(), igLogin().Provider, "image", link)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", link, err, want)
		}
	}
	if len(auth) != 1 {
		t.Fatalf("the CDN got %d requests", len(auth))
	}
}
