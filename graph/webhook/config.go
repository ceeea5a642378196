// Package webhook delivers events to customers' endpoints: fan-out of
// recorded events into deliveries, one signed attempt at a time on a retry
// schedule through the guarded client (graph/egress), signing secrets, the
// verification handshake, metadata-only redaction, and the endpoint and
// delivery API.
package webhook

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// EventEndpointVerification is the handshake event; it is sent, never
// recorded, and no endpoint can subscribe to it.
const EventEndpointVerification = "endpoint.verification"

// subscribable are the event types an endpoint may ask for.
var subscribable = []string{
	event.MessageReceived, event.MessageSent, event.MessageStatus, event.ConversationCreated,
	event.ConversationUpdated, event.ContactCreated, event.ContactUpdated, event.ContactDeleted,
	event.ConversationDeleted,
}

// DefaultRetrySchedule is the wait after each failed attempt; the last value
// repeats.
var DefaultRetrySchedule = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 6 * time.Hour, 12 * time.Hour}

// Config configures webhooks (docs/configuration.md). A zero duration or an
// empty schedule means the default.
type Config struct {
	// AllowInsecure lets http:// URLs and private, loopback and link-local
	// addresses through: development and tests only.
	AllowInsecure bool
	RetrySchedule []time.Duration
	// GiveUpAfter ends retries this long after the first attempt, and
	// switches off an endpoint that failed for this long without a success.
	GiveUpAfter time.Duration
	// Timeout bounds one request, answer included.
	Timeout   time.Duration
	EgressIPs []string
	// Retention is how long events and deliveries are kept.
	Retention time.Duration
	// SweepGrace is how long a due delivery may wait for its task before the
	// sweep hands it a new one; zero sweeps at once (tests).
	SweepGrace time.Duration
	// Here, in a worker process, is the context of its attempts: the
	// deliveries its fan-out finds due now are attempted in the process at
	// once, as many as there are free places (MaxAttemptsInFlight), rather
	// than handed to the queue, where an idle worker looks for them only
	// every 50-150 ms; the rest go to the queue. Nil hands all to the queue.
	Here context.Context

	once   sync.Once
	client *http.Client

	placesOnce sync.Once
	places     chan struct{} // attemptPlaces
}

var defaultConfig = &Config{SweepGrace: 30 * time.Second}

// Enqueuer hands deliveries to the job queue.
type Enqueuer interface {
	// DeliveryDue asks for an attempt of a webhook delivery after a delay.
	DeliveryDue(ctx context.Context, deliveryID string, in time.Duration) error
	// DeliveriesDue asks for an attempt of each of some deliveries due now,
	// several to a task.
	DeliveriesDue(ctx context.Context, deliveryIDs []string) error
}

// Service is the webhook domain over its store, queue and clock.
type Service struct {
	Store   Store
	Jobs    Enqueuer
	Clock   clock.Clock
	Cursors cursor.Signer
	// Secrets seal the endpoints' signing secrets (the first) and open them
	// (every one).
	Secrets signing.Secrets
	// Config is nil for the defaults.
	Config *Config
	// StepUp guards showing a signing secret; nil lets only the admin
	// token see one.
	StepUp StepUp
	// Recoveries hands recoveries to the job queue; nil leaves them to
	// SweepRecoveries.
	Recoveries RecoveryQueue
}

// config returns the configuration, or the defaults.
func (s *Service) config() *Config {
	if s.Config != nil {
		return s.Config
	}
	return defaultConfig
}

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (c *Config) giveUpAfter() time.Duration { return orDuration(c.GiveUpAfter, 72*time.Hour) }
func (c *Config) timeout() time.Duration     { return orDuration(c.Timeout, 10*time.Second) }
func (c *Config) retention() time.Duration   { return orDuration(c.Retention, 30*24*time.Hour) }

// Expired says whether a record made at t is past the retention period, so
// it is gone for the API whether or not the purge has run yet.
func (s *Service) Expired(t time.Time) bool {
	return t.Before(s.Clock.Now().Add(-s.config().retention()))
}

// lease is how long a worker holds a delivery: the longest an attempt can
// take, with room for its database writes.
func (c *Config) lease() time.Duration { return c.timeout() + 30*time.Second }

// RetryDelay is the wait after the attempts-th failed attempt.
func (c *Config) RetryDelay(attempts int) time.Duration {
	s := c.RetrySchedule
	if len(s) == 0 {
		s = DefaultRetrySchedule
	}
	return s[min(max(attempts, 1), len(s))-1]
}

// endpointStatus derives the status the contract shows.
func endpointStatus(e *repo.WebhookEndpoint) string {
	switch {
	case !e.Enabled:
		return "disabled"
	case e.VerifiedAt == nil:
		return "unverified"
	}
	return "active"
}

func toWebhookEndpoint(e *repo.WebhookEndpoint) *model.WebhookEndpoint {
	out := &model.WebhookEndpoint{
		ID: e.ID, Object: "webhook_endpoint", URL: e.URL, Description: e.Description,
		Channels: view.OrEmpty(e.Channels), Events: view.OrEmpty(e.Events), WebsiteIDs: view.OrEmpty(e.WebsiteIDs),
		MetadataOnly: e.MetadataOnly, TestEvents: e.TestEvents, Status: endpointStatus(e),
		VerifiedAt: model.TimestampPtr(e.VerifiedAt), CreatedAt: model.NewTimestamp(e.CreatedAt),
	}
	if !e.Enabled {
		out.DisabledReason = e.DisabledReason
	}
	return out
}

func toWebhookDelivery(d *repo.WebhookDelivery) *model.WebhookDelivery {
	return &model.WebhookDelivery{
		ID: d.ID, Object: "webhook_delivery", EndpointID: d.EndpointID, EventID: d.EventID,
		EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastResponseStatus: d.LastResponseStatus, LastError: d.LastError,
		NextAttemptAt: model.TimestampPtr(d.NextAttemptAt), ReplayOf: d.ReplayOf,
		CreatedAt: model.NewTimestamp(d.CreatedAt),
	}
}

// Matches says whether an event goes to an endpoint: the endpoint was
// verified by the time the event happened, wants the event's type, covers
// its channel and website as a key with the endpoint's limits would
// (auth.EventVisible: contact.* events, of no channel or website, go to
// every endpoint not limited to some websites), and takes sandbox events if
// the event is one.
func Matches(e *repo.WebhookEndpoint, ev *repo.Event) bool {
	switch {
	case !e.Enabled || e.DeletedAt != nil || e.VerifiedAt == nil || e.VerifiedAt.After(ev.CreatedAt):
		return false
	case !ev.Livemode && !e.TestEvents:
		return false
	case !slices.Contains(e.Events, "*") && !slices.Contains(e.Events, ev.Type):
		return false
	case !auth.EventVisible(e.Channels, e.WebsiteIDs, ev.Channel, ev.WebsiteID):
		return false
	}
	return true
}

// RetentionPeriod is how long events, deliveries and the API request log
// are kept; a nil Config has the default.
func (c *Config) RetentionPeriod() time.Duration {
	if c == nil {
		return defaultConfig.retention()
	}
	return c.retention()
}
