package send

import "github.com/msgsvc/msgsvc/internal/apierr"

// liveCommentRule: a comment on a live video (Meta's live_comments field)
// takes no public reply; its private reply goes out only while the video
// is being broadcast, which the adapter asks Meta at send time.
// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-comment/replies
// https://developers.facebook.com/docs/instagram-platform/private-replies
func liveCommentRule(req *sendRequest, t *sendTarget) error {
	if t.liveMediaID != "" && req.replyAs != "dm" {
		return apierr.New(apierr.PublicReplyNotAllowed,
			"A comment on a live video takes no public reply; send its private reply (reply_as \"dm\") while the broadcast lasts.")
	}
	return nil
}
