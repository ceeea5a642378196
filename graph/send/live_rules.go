package send

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// liveRules are the checks only a live send makes before its provider is
// called: the account's credentials and state and the rate-limit holds of
// earlier provider answers (a marketing send's include its recipient's
// marketing hold).
func (s *Service) liveRules(ctx context.Context, q repo.Queries, req *sendRequest, t *sendTarget, marketing bool) (*channels.Credentials, error) {
	if t.acc.Status == "needs_reauth" {
		return nil, needsReauth(ctx, q, t.acc)
	}
	if req.async {
		// A queued send waits out the holds in the pacer.
		return s.credentials(ctx, q, t)
	}
	until, err := q.HoldUntil(ctx, t.acc.WorkspaceID, t.acc.ID, recipient(req, t), marketing, s.Clock.Now())
	if err != nil {
		return nil, err
	}
	if until != nil {
		e := apierr.New(apierr.ChannelRateLimited, "The provider asked to slow down on account %s; retry after Retry-After.", t.acc.ID)
		e.RetryAfter = until.Sub(s.Clock.Now())
		return nil, e
	}
	return s.credentials(ctx, q, t)
}

// credentials opens the sending account's provider credentials; nil for a
// channel that needs none.
func (s *Service) credentials(ctx context.Context, q repo.Queries, t *sendTarget) (*channels.Credentials, error) {
	if !credentialed[t.acc.Channel] || s.Credentials == nil {
		return nil, nil
	}
	creds, err := s.Credentials.Of(ctx, q, t.acc.WorkspaceID, t.acc.ID)
	if err != nil {
		return nil, err
	}
	if creds == nil {
		return nil, apierr.New(apierr.ChannelUnavailable, "Account %s has no provider credentials: it sends with test keys only. Nothing was sent.", t.acc.ID)
	}
	return creds, nil
}

// recipient is the customer's address on the channel.
func recipient(req *sendRequest, t *sendTarget) string {
	if t.contact == nil {
		return req.to
	}
	switch req.channel {
	case "whatsapp":
		// The phone when known: Meta shares it in later webhooks then.
		if t.contact.Phone == nil {
			return deref(t.contact.WhatsAppUserID)
		}
		return deref(t.contact.Phone)
	case "instagram":
		return deref(t.contact.InstagramUserID)
	case "email":
		return deref(t.contact.Email)
	case "website":
		return deref(t.contact.ExternalID)
	}
	return req.to
}
