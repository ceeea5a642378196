// Package graph holds gqlgen's resolvers: thin entry points that REST /v1
// and GraphQL both call. The rules live in the domain packages under graph/
// (send, inbound, conversation, contact, webhook, auth, seed, files); New
// builds each of them once from a Config (services.go).
package graph

//go:generate go tool gqlgen generate

import (
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/ai"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/inbox"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/member"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/redis/go-redis/v9"
)

// Enqueuer hands background work to the job queue (jobs.Client is one);
// jobs carry only ids.
type Enqueuer interface {
	// EventsRecorded and FanOutDue say that new events wait to be fanned
	// out (event.Announcer).
	event.Announcer
	// DeliveryDue and DeliveriesDue hand webhook deliveries to the queue.
	webhook.Enqueuer
	// RecoveryDue hands a recovery of failed deliveries to the queue.
	webhook.RecoveryQueue
	// AIReplyDue asks for the AI's answer to a conversation.
	ai.Enqueuer
	// MetaHookStored asks for a stored Meta webhook's processing.
	metahook.Queue
	// InboundMail asks for a stored inbound mail's processing.
	mail.MailQueue
}

// Config is what the services are built from. Everything in it is set
// before New: the services keep what New gave them.
type Config struct {
	Store *repo.Store
	// Jobs is the job queue; nil leaves the work to the sweeps (tests).
	Jobs Enqueuer
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
	// InboxBus carries the inbox's presence and notes to every serve
	// process (widget.Publish over Redis); nil keeps them in process.
	InboxBus inbox.Bus
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
	// Development writes sign-in and step-up codes to the log when no
	// SMTP relay sends them (MSGSVC_ENV other than production).
	Development bool
	// MemberMail, when set, sends the members' codes instead of the
	// notices' relay (tests); MemberMailSent hears each one's outcome.
	MemberMail     member.Mailer
	MemberMailSent func(to string, err error)
	// KeyChangeRedis carries key changes to the other processes' key caches
	// (auth.Announce); nil tells this process's cache only.
	KeyChangeRedis *redis.Client
}

// Resolver is the root of gqlgen's resolvers: the services, built once,
// and the store the admin lists read.
type Resolver struct {
	Store *repo.Store
	// Seal and Clock are Config's: REST seals stored answers and reads the
	// time with them.
	Seal  seal.Key
	Clock func() time.Time
	*Services
}

// New builds the services from cfg and the resolvers over them.
func New(cfg Config) *Resolver {
	return &Resolver{Store: cfg.Store, Seal: cfg.Seal, Clock: cfg.Clock, Services: NewServices(cfg)}
}
