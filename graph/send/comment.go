package send

import (
	"context"
	"errors"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// commentRule finds the comment a reply in an Instagram comment
// conversation answers: the one a private reply answers, else the
// conversation's latest. A live comment has the provider's id
// (instagram_comments); a sandbox comment has none, and its message id
// stands in (the sandbox calls no provider).
func commentRule(ctx context.Context, q repo.Queries, s repo.Scope, t *sendTarget) error {
	comment := t.comment
	if comment == nil {
		latest, err := q.LatestInboundMessage(ctx, s, t.conv.ID)
		if errors.Is(err, repo.ErrNotFound) {
			return apierr.New(apierr.InvalidRequest, "Conversation %s has no comment to reply to.", t.conv.ID)
		}
		if err != nil {
			return err
		}
		comment = latest
	}
	provider, err := q.InstagramCommentOf(ctx, comment.ID)
	switch {
	case errors.Is(err, repo.ErrNotFound):
		t.commentID = comment.ID
	case err != nil:
		return err
	default:
		t.commentID = provider.CommentID
		if provider.Field == "live_comments" {
			t.liveMediaID = provider.MediaID
		}
	}
	return nil
}
