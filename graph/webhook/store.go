package webhook

import (
	"context"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// Store is what webhooks read and write outside a transaction; repo.Store is
// one. InTx runs the writes that must commit together.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	ClaimWebhookReverifications(ctx context.Context, now, leaseUntil time.Time, limit int) ([]repo.DueVerification, error)
	ClaimWebhookDelivery(ctx context.Context, id string, now, until time.Time, token string) (*repo.ClaimedWebhookDelivery, error)
	Event(ctx context.Context, s repo.Scope, id string) (*repo.Event, error)
	UnfannedPartitions(ctx context.Context) ([]int, error)
	InsertWebhookDelivery(ctx context.Context, d *repo.WebhookDelivery) error
	InsertWebhookEndpoint(ctx context.Context, e *repo.WebhookEndpoint) error
	NextInOrder(ctx context.Context, endpointID, conversationID string) (*repo.DueWebhookDelivery, error)
	PurgeEvents(ctx context.Context, before time.Time, limit int) (int64, error)
	ReadyWebhookDeliveries(ctx context.Context, ids []string) ([]string, error)
	RecordLoggedWebhookSuccess(ctx context.Context, id, token string, log *repo.WebhookAttemptLog) (bool, *repo.DueWebhookDelivery, error)
	WebhookAttemptLogs(ctx context.Context, s repo.Scope, deliveryIDs []string) ([]repo.WebhookAttemptLog, error)
	WebhookRecovery(ctx context.Context, s repo.Scope, id string) (*repo.WebhookRecovery, error)
	StaleWebhookRecoveries(ctx context.Context, before time.Time, limit int) ([]string, error)
	ReleaseWebhookDelivery(ctx context.Context, id, token string) error
	ScheduleWebhookReverify(ctx context.Context, id, url string, since time.Time, livemode bool, at *time.Time) error
	SetWebhookVerified(ctx context.Context, id, url string, at *time.Time) error
	SweepWebhookDeliveries(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]repo.DueWebhookDelivery, error)
	WebhookDeliveries(ctx context.Context, s repo.Scope, f repo.WebhookDeliveryFilter, p repo.Page) ([]repo.WebhookDelivery, error)
	WebhookDelivery(ctx context.Context, s repo.Scope, id string) (*repo.WebhookDelivery, error)
	WebhookEndpoint(ctx context.Context, workspaceID, id string) (*repo.WebhookEndpoint, error)
	WebhookEndpointAnyState(ctx context.Context, id string) (*repo.WebhookEndpoint, error)
	WebhookEndpoints(ctx context.Context, workspaceID string) ([]repo.WebhookEndpoint, error)
	Websites(ctx context.Context, s repo.Scope) ([]repo.Website, error)
}
