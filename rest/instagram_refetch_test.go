package rest_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
)

// An Instagram attachment whose download failed keeps its link; POST
// /v1/files/{id}/refetch downloads it again while the CDN serves it, and
// answers 422 media_expired once the link no longer opens.
func TestInstagramRefetch(t *testing.T) {
	t.Parallel()
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	link := h.graph.Instagram.URL + "/media-files/att-late"
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.att", h.Clock.Now().Add(-time.Minute), map[string]any{"text": "a photo",
		"attachments": []any{map[string]any{"type": "image", "payload": map[string]any{"url": link}},
			map[string]any{"type": "video", "payload": map[string]any{"url": h.graph.Instagram.URL + "/media-files/att-gone"}}}}))
	got := h.one("message.received", "a photo")
	atts := got["attachments"].([]any)
	if len(atts) != 2 || lookup(atts[0], "status") != "failed" || lookup(atts[0], "provider_media_id") != link {
		t.Fatalf("attachments %v", atts)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 64)...)
	h.graph.AddMedia("att-late", png, "image/png", igToken, "")
	again := h.Want(h.Do("POST", "/v1/files/"+lookup(atts[0], "id").(string)+"/refetch", "live_all", nil), 200, "").Data()
	if again["status"] != "stored" || again["size"] != float64(len(png)) || again["content_type"] != "image/png" {
		t.Fatalf("refetched %v", again)
	}
	resp := h.Want(h.Do("POST", "/v1/files/"+lookup(atts[1], "id").(string)+"/refetch", "live_all", nil), 422, "media_expired")
	if msg, _ := lookup(resp.Body, "error.message").(string); msg == "" {
		t.Fatalf("no message: %v", resp.Body)
	}
}
