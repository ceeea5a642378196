package rest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// secretBytes is what the internal stand-in serves: an image, so nothing
// but the egress rules can keep it out.
var secretBytes = append([]byte("\x89PNG\r\n\x1a\n"), []byte("SECRET-INSTANCE-CREDENTIALS")...)

// internalService stands in for a service inside msgsvc's network (a
// cloud metadata service on loopback); it counts the requests it gets.
func internalService(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(secretBytes)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// redirectingCDN is an https host that redirects every request to target,
// after failing the first `fail` requests with 500.
func redirectingCDN(t *testing.T, target string, fail int32) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= fail {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, target, http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// storedBytes is the length of a file's stored content.
func storedBytes(t *testing.T, db func(dest any, q string, args ...any) error, id string) int {
	t.Helper()
	var n int
	if err := db(&n, `SELECT coalesce(octet_length(content), 0) FROM files WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return n
}

// A signed Instagram DM whose attachment link (https) redirects to an
// internal address is not followed, nor is a redirect of the (trusted)
// Graph host itself to one: the attachments fail, no byte of the internal
// answer is stored, and the internal service gets no request.
// (Payload shape: https://developers.facebook.com/docs/instagram-platform/webhooks/examples/)
func TestInstagramAttachmentRedirectToLoopbackIsRefused(t *testing.T) {
	t.Parallel()
	inside, hits := internalService(t)
	cdn := redirectingCDN(t, inside.URL+"/latest/meta-data/iam/security-credentials/", 0)
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.graph.Queue(metatest.Script{Method: http.MethodGet, Host: metatest.HostInstagram, PathSuffix: "/media-files/att-moved",
		Status: http.StatusFound, Header: http.Header{"Location": {inside.URL + "/latest/meta-data/"}}, Body: []byte{}})
	links := []string{cdn.URL + "/ig_messaging_cdn/?asset_id=1&signature=s", h.graph.Instagram.URL + "/media-files/att-moved"}
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.ssrf", h.Clock.Now().Add(-time.Minute), map[string]any{"text": "see this",
		"attachments": []any{map[string]any{"type": "image", "payload": map[string]any{"url": links[0]}},
			map[string]any{"type": "image", "payload": map[string]any{"url": links[1]}}}}))
	atts := h.one("message.received", "see this")["attachments"].([]any)
	if len(atts) != 2 || hits.Load() != 0 {
		t.Fatalf("attachments %v, %d internal requests", atts, hits.Load())
	}
	for _, a := range atts {
		if lookup(a, "status") != "failed" || storedBytes(t, h.Store.DB.Get, lookup(a, "id").(string)) != 0 {
			t.Fatalf("attachment %v", a)
		}
	}
}

// The same for a WhatsApp media whose download URL redirects inside, and
// POST /v1/files/{id}/refetch of it: refused, nothing stored, and the
// answer names the cause without the internal address or answer.
// (Media URL: https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media/)
func TestWhatsAppMediaRedirectToLoopbackIsRefused(t *testing.T) {
	t.Parallel()
	inside, hits := internalService(t)
	// The first download fails (a 500), so the file stays failed for the
	// refetch, which meets the redirect.
	cdn := redirectingCDN(t, inside.URL+"/latest/meta-data/", 1)
	h := newMetaHooks(t)
	sum := sha256.Sum256(secretBytes)
	for range 2 {
		h.graph.Queue(metatest.Script{Method: http.MethodGet, PathSuffix: "/media.SSRF", Status: 200, Body: map[string]any{
			"url": cdn.URL + "/whatsapp_business/attachments/?mid=1&ext=1&hash=h", "mime_type": "image/png",
			"sha256": base64.StdEncoding.EncodeToString(sum[:]), "file_size": "35", "id": "media.SSRF", "messaging_product": "whatsapp"}})
	}
	h.deliver(waChange("messages", waValue("messages", waMessage("wamid.SSRF", h.Clock.Now().Unix()-60, "image",
		map[string]any{"id": "media.SSRF", "mime_type": "image/png"}))))
	att := h.messageOf("wamid.SSRF")["attachments"].([]any)[0].(map[string]any)
	id, _ := att["id"].(string)
	if att["status"] != "failed" || hits.Load() != 0 || storedBytes(t, h.Store.DB.Get, id) != 0 {
		t.Fatalf("attachment %v, %d internal requests", att, hits.Load())
	}
	r := h.Want(h.Do("POST", "/v1/files/"+id+"/refetch", "live_all", nil), 503, "channel_unavailable")
	msg, _ := lookup(r.Body, "error.message").(string)
	_, insidePort, _ := strings.Cut(strings.TrimPrefix(inside.URL, "http://"), ":")
	if !strings.Contains(msg, "msgsvc refused") || strings.Contains(msg, insidePort) || strings.Contains(msg, "SECRET") ||
		strings.Contains(msg, "meta-data") || strings.Contains(msg, "dial") {
		t.Errorf("refetch answered %q; want the cause (msgsvc refused) without the internal address or answer", msg)
	}
	if hits.Load() != 0 || storedBytes(t, h.Store.DB.Get, id) != 0 {
		t.Fatalf("after the refetch: %d internal requests, %d bytes stored", hits.Load(), storedBytes(t, h.Store.DB.Get, id))
	}
}
