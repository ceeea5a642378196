// Package graph holds gqlgen's resolvers: thin entry points that REST /v1
// and GraphQL both call. The rules live in the domain packages under graph/
// (send, inbound, conversation, contact, webhook, auth, seed, files); this
// file builds them from the Resolver's fields.
package graph

//go:generate go tool gqlgen generate

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/ai"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Enqueuer hands background work to the job queue; jobs carry only ids.
type Enqueuer interface {
	// EventsRecorded says that new events wait to be fanned out.
	EventsRecorded(ctx context.Context) error
	// DeliveryDue and DeliveriesDue hand webhook deliveries to the queue.
	webhook.Enqueuer
}

// Resolver holds the dependencies of every resolver.
type Resolver struct {
	Store *repo.Store
	Jobs  Enqueuer
	// Secret is the service secret that signs (MSGSVC_SECRET's first);
	// PreviousSecrets are the rest of its list, which still verify.
	Secret          string
	PreviousSecrets []string
	// Clock returns the current time; tests inject their own.
	Clock func() time.Time
	// Adapters send live messages, one per channel; a channel without one
	// refuses live sends (test keys always use the sandbox adapter).
	Adapters map[string]channels.Adapter
	// PublicURL is the base of signed file links ("" gives relative links).
	PublicURL string
	// CommitListener, when set, hears of every commit that recorded events
	// (the widget hubs' wake-up).
	CommitListener event.Listener
	// Typing passes agents' typing to website visitors' widgets; nil where
	// no widget runs.
	Typing ai.TypingPublisher
	// VisitorTypingFeed hears website visitors typing (the visitorTyping
	// subscription); nil where no widget runs.
	VisitorTypingFeed ai.TypingFeed
	// Webhooks configures webhook delivery; nil means the defaults.
	Webhooks *webhook.Config
	// AI chooses the AI's responder; nil is the built-in one.
	AI *AIConfig
	// Mail are the email settings: the return path of outbound mail
	// (MSGSVC_SMTP_RETURN_PATH_DOMAIN), the listener's and relay's hosts.
	Mail mail.Settings
	// Seal seals and opens provider credentials at rest (graph/seal).
	Seal seal.Key
	// ProviderTimeout bounds one provider call (MSGSVC_PROVIDER_TIMEOUT).
	ProviderTimeout time.Duration
	// ProviderUnknownAfter is how long a send with no provider answer waits
	// for a status (MSGSVC_PROVIDER_UNKNOWN_AFTER; 15m when 0).
	ProviderUnknownAfter time.Duration
	// Refresher re-syncs a WhatsApp number's templates soon (after a
	// 132001); nil does nothing.
	Refresher send.TemplateRefresher
	// WhatsApp downloads inbound media and syncs templates (the
	// channels/whatsapp adapter); nil leaves both undone.
	WhatsApp metahook.WhatsApp
	// Pacer spaces live WhatsApp sends of one number (MSGSVC_WHATSAPP_PACE);
	// nil paces nothing.
	Pacer *send.Pacer
	// EmailRemoteImages is inbound mail's remote image policy in html
	// (MSGSVC_EMAIL_REMOTE_IMAGES; "" blocks them).
	EmailRemoteImages string
	// EmailImageClient fetches proxied remote images; nil reaches public
	// addresses only (tests reach their own servers with another).
	EmailImageClient *http.Client
	// KeyCache, when set, keeps resolved keys and workspaces in process
	// (auth.CachedKeys); nil reads them on every request.
	KeyCache *auth.CachedKeys
	// StreamHorizon, when set, shares the event streams' horizon reads
	// in process (eventstream.SharedHorizon over Store); nil reads it per
	// stream.
	StreamHorizon *eventstream.SharedHorizon
}

// Authenticate resolves a key secret into the caller (see auth.Authenticator).
func (r *Resolver) Authenticate(ctx context.Context, secret string, ip net.IP) (*auth.Actor, *repo.Workspace, error) {
	var keys auth.KeyStore = r.Store
	if r.KeyCache != nil {
		keys = r.KeyCache
	}
	return (&auth.Authenticator{Keys: keys, Clock: r.Clock}).Authenticate(ctx, secret, ip)
}

func (r *Resolver) events() event.Recorder {
	var queue event.Announcer
	if r.Jobs != nil {
		queue = r.Jobs
	}
	return event.Recorder{Clock: r.Clock, Queue: queue, Listener: r.CommitListener}
}

func (r *Resolver) contacts() *contact.Service {
	return &contact.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Cursors: r.cursors()}
}

func (r *Resolver) cursors() cursor.Signer { return cursor.Signer{Secrets: r.secrets()} }

// secrets are the service secrets, the signing one first.
func (r *Resolver) secrets() signing.Secrets {
	return append(signing.Secrets{r.Secret}, r.PreviousSecrets...)
}

func (r *Resolver) files() *files.Service {
	return &files.Service{Store: r.Store, Clock: r.Clock, Secrets: r.secrets(), PublicURL: r.PublicURL,
		ImageClient: r.EmailImageClient}
}

// EmailImage fetches the remote image a signed proxy link names (see
// files.Service.Image).
func (r *Resolver) EmailImage(ctx context.Context, remote, expires, signature string) (*files.RemoteImage, error) {
	return r.files().Image(ctx, remote, expires, signature)
}

// FileContent returns the file a signed link names and a reader of its
// bytes, read from the store in chunks (see files.Service).
func (r *Resolver) FileContent(ctx context.Context, id, expires, signature string) (*repo.File, io.Reader, error) {
	svc := r.files()
	f, err := svc.Content(ctx, id, expires, signature)
	if err != nil {
		return nil, nil, err
	}
	return f, svc.Body(ctx, f), nil
}

// WebhookService is the webhook domain: fan-out, attempts, sweeps, endpoints
// and deliveries.
func (r *Resolver) WebhookService() *webhook.Service {
	var jobs webhook.Enqueuer
	if r.Jobs != nil {
		jobs = r.Jobs
	}
	return &webhook.Service{Store: r.Store, Jobs: jobs, Clock: r.Clock, Cursors: r.cursors(), Secrets: r.secrets(), Config: r.Webhooks}
}

func (r *Resolver) conversations() *conversation.Service {
	return &conversation.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Cursors: r.cursors(), Files: r.files()}
}

// PurgeIdempotencyKeys deletes Idempotency-Key records past the 24 hours
// they are remembered.
func (r *Resolver) PurgeIdempotencyKeys(ctx context.Context) error {
	_, err := r.Store.PurgeIdempotencyKeys(ctx, clock.Clock(r.Clock).Now().Add(-repo.IdempotencyTTL))
	return err
}

// Sends is the send service: rest sends through it with the request's
// Idempotency-Key, which GraphQL does not carry.
func (r *Resolver) Sends() *send.Service { return r.sends() }

func (r *Resolver) sends() *send.Service {
	return &send.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Files: r.files(), Adapters: r.Adapters,
		Credentials: credentials.Vault{Key: r.Seal}, Refresher: r.Refresher, ProviderTimeout: r.ProviderTimeout,
		UnknownAfter: r.ProviderUnknownAfter, Email: r.mailEnvelope(), SenderDNS: r.senderDNS(), Pacer: r.Pacer}
}

// DeliverSandbox completes the sandbox sends that are due: delivered or
// failed, with message.status (see send.Service).
func (r *Resolver) DeliverSandbox(ctx context.Context, delay time.Duration) error {
	return r.sends().DeliverSandbox(ctx, delay)
}

// SweepSending gives up live sends a dead process left sending (see send.Service).
func (r *Resolver) SweepSending(ctx context.Context) error { return r.sends().SweepSending(ctx) }

func (r *Resolver) inbound() *inbound.Service {
	return &inbound.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Display: mail.Display{RemoteImages: r.EmailRemoteImages}}
}
