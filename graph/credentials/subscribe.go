package credentials

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/repo"
)

// Subscriber subscribes the app to an account's webhooks at its provider
// (WhatsApp: POST /{waba_id}/subscribed_apps; Instagram: POST
// /{ig_user_id}/subscribed_apps, or the Page's on Facebook Login); the
// channels/whatsapp and channels/instagram adapters are ones.
type Subscriber interface {
	Subscribe(ctx context.Context, creds *channels.Credentials) error
}

// subscribe subscribes a newly connected account through the subscriber of
// its channel, if any, and records how it went on the account (its
// subscription check, shown in GET /v1/channels and the connection): a
// failure keeps the credentials, is logged, and says why without secrets.
func (c *Connections) subscribe(ctx context.Context, acc *repo.Account, creds channels.Credentials) error {
	sub := c.Subscribers[acc.Channel]
	if sub == nil {
		return nil
	}
	check := repo.AccountCheck{Status: "ok", At: c.Clock.Now()}
	if err := sub.Subscribe(ctx, &creds); err != nil {
		reason := channels.AsRefusal(err).Reason
		check.Status, check.Error = "failed", &reason
		slog.Warn("credentials: webhook subscription failed; the account receives nothing until it succeeds",
			"workspace", acc.WorkspaceID, "account", acc.ID, "channel", acc.Channel, "reason", reason)
	}
	return c.Store.SetAccountCheck(ctx, acc.WorkspaceID, acc.ID, repo.CheckSubscription, check)
}

// subscription is the account's recorded subscription check, if any.
func (c *Connections) subscription(ctx context.Context, acc *repo.Account) (*repo.AccountCheck, error) {
	checks, err := c.Store.AccountChecks(ctx, acc.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return checks[acc.ID].Subscription, nil
}
