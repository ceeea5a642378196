package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// A live comment takes only the private reply; other comments take both.
func TestLiveCommentRule(t *testing.T) {
	live, post := &sendTarget{liveMediaID: "17800000000000009"}, &sendTarget{}
	for _, c := range []struct {
		t       *sendTarget
		replyAs string
		want    apierr.Code
	}{{live, "", apierr.PublicReplyNotAllowed}, {live, "comment", apierr.PublicReplyNotAllowed}, {live, "dm", ""},
		{post, "", ""}, {post, "comment", ""}, {post, "dm", ""}} {
		err := liveCommentRule(&sendRequest{replyAs: c.replyAs}, c.t)
		got := apierr.Code("")
		if e, ok := apierr.As(err); ok {
			got = e.Code
		}
		if got != c.want {
			t.Errorf("live %v, reply_as %q: %v, want %q", c.t.liveMediaID != "", c.replyAs, err, c.want)
		}
	}
}
