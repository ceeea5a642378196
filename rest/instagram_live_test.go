package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
)

// Live video comments (field live_comments): no public reply (422
// public_reply_not_allowed, no call); the private reply goes out while the
// video is being broadcast (GET /{ig_user_id}/live_media lists it) and is
// refused (422 private_reply_expired, nothing sent) after, without using
// up the comment's one reply.
// https://developers.facebook.com/docs/instagram-platform/webhooks/examples (live_comments payload)
// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/live_media
// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-comment/replies (live comments take no replies)
func TestInstagramLiveCommentReplies(t *testing.T) {
	t.Parallel()
	const media = "17800000000000009"
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	h.graph.AddInstagramAccount(metatest.InstagramAccount{IGUserID: igUser, Username: "acme", Token: igToken})
	h.graph.SetLive(igUser, media)
	comment := func(id, text string) string {
		hook := igCommentHook(igUser, "live_comments", id, igCustomer, media, text, h.Clock.Now())
		hook["entry"].([]any)[0].(map[string]any)["changes"].([]any)[0].(map[string]any)["value"].(map[string]any)["media"] =
			map[string]any{"id": media, "media_product_type": "LIVE"}
		h.deliver(hook)
		return h.one("message.received", text)["conversation_id"].(string)
	}
	messages := func() []metatest.Request {
		return h.graph.Requests(func(r metatest.Request) bool {
			return strings.HasSuffix(r.Path, "/messages") || strings.HasSuffix(r.Path, "/replies")
		})
	}
	conv := comment("17900000000000101", "what size is that?")
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "publicly"}), 422, "public_reply_not_allowed")
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "publicly", "reply_as": "comment"}), 422, "public_reply_not_allowed")
	if n := len(messages()); n != 0 {
		t.Fatalf("%d provider sends for refused public replies", n)
	}
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "Size M, sent you the link", "reply_as": "dm"}), 201, "")
	asked := h.graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/live_media") })
	if len(asked) != 1 || asked[0].Method != http.MethodGet || asked[0].Path != "/v24.0/"+igUser+"/live_media" || asked[0].Bearer() != igToken {
		t.Fatalf("live_media calls %+v", asked)
	}
	sent := messages()
	if len(sent) != 1 {
		t.Fatalf("%d sends", len(sent))
	}
	metatest.SameJSON(t, sent[0].JSON(), `{"recipient":{"comment_id":"17900000000000101"},"message":{"text":"Size M, sent you the link"}}`)

	// The broadcast ends: a later comment's private reply is refused, and
	// stays possible should Meta list the video again.
	conv = comment("17900000000000102", "is it still on?")
	h.graph.SetLive(igUser)
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "too late", "reply_as": "dm"}), 422, "private_reply_expired")
	if n := len(messages()); n != 1 {
		t.Fatalf("a private reply after the broadcast was sent (%d sends)", n)
	}
	h.graph.SetLive(igUser, media)
	h.Want(sendMsg(h.API, "live_all", map[string]any{"conversation_id": conv, "text": "back on", "reply_as": "dm"}), 201, "")
}
