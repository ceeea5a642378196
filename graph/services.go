package graph

import (
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/ai"
	"github.com/msgsvc/msgsvc/graph/apikey"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/inbox"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/member"
	"github.com/msgsvc/msgsvc/graph/metahook"
	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/graph/webhook"
)

// AIConfig chooses the AI's responder: the built-in one without a URL, an
// OpenAI-compatible chat-completions API with one.
type AIConfig struct {
	URL, Model, APIKey string
	// Timeout bounds one model call; past it the AI hands off (0: 30 s).
	Timeout time.Duration
}

func (c *AIConfig) responder() ai.Responder {
	if c == nil || c.URL == "" {
		return ai.Builtin{}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return &ai.LLM{URL: c.URL, Model: c.Model, APIKey: c.APIKey, Client: &http.Client{Timeout: timeout}}
}

// Services are the domain services, each built once by NewServices: the
// resolvers, REST, the SMTP listener, the widget and the jobs call them.
type Services struct {
	Auth          *auth.Authenticator
	Files         *files.Service
	Contacts      *contact.Service
	Conversations *conversation.Service
	Inbound       *inbound.Service
	Sends         *send.Service
	Usage         *send.Usage
	Channels      *credentials.Channels
	Connections   *credentials.Connections
	// AI is the service's own processing: AI replies, the human queue and
	// its routing, and the agents' operations.
	AI       *ai.Service
	Webhooks *webhook.Service
	// MetaHooks stores and processes the webhooks of /hooks/meta and syncs
	// WhatsApp templates; Media fetches provider media again.
	MetaHooks *metahook.Service
	Media     *metahook.Media
	// Mail turns stored inbound mail into messages and bounces; Inbox is
	// the SMTP listener's side; Unsubscriber answers List-Unsubscribe
	// links; Notices sends the owner notices through the live email
	// adapter's relay (without one they wait).
	Mail         *mail.Processor
	Inbox        *mail.Inbox
	Unsubscriber *mail.Unsubscriber
	Notices      *mail.Notices
	// Visitors is website chat's visitor side.
	Visitors *visitor.Service
	// InstagramTokens refreshes the Instagram Login tokens that are due;
	// nil without the live Instagram adapter.
	InstagramTokens *instagram.Tokens
	// AgentInbox is the app's agent inbox: views, unread counts, read
	// marks, private notes and presence.
	AgentInbox *inbox.Service
	// EventStream opens GET /v1/events/stream over the outbox, with the
	// webhooks' retention.
	EventStream *eventstream.Service
	// People is the app's people: members, sign-in codes, sessions and
	// step-up (its codes go through Notices' relay).
	People *member.Service
	// APIKeys, ChannelsOverview and RequestLogs are the developer
	// portal's (docs/reference.md, Internal dashboards).
	APIKeys          *apikey.Service
	ChannelsOverview *credentials.Overview
	RequestLogs      *requestlog.Service
}

// NewServices builds every service once from cfg, each handed the others
// it calls.
func NewServices(cfg Config) *Services {
	secrets := append(signing.Secrets{cfg.Secret}, cfg.PreviousSecrets...)
	cursors := cursor.Signer{Secrets: secrets}
	events := event.Recorder{Clock: cfg.Clock, Queue: cfg.Jobs, Listener: cfg.CommitListener}
	vault := credentials.Vault{Key: cfg.Seal}
	igMedia, _ := cfg.Adapters["instagram"].(instagram.Downloader)
	s := &Services{}
	var keys auth.KeyStore = cfg.Store
	if cfg.KeyCache != nil {
		keys = cfg.KeyCache
	}
	s.Auth = &auth.Authenticator{Keys: keys, Clock: cfg.Clock}
	s.Files = &files.Service{Store: cfg.Store, Clock: cfg.Clock, Secrets: secrets, PublicURL: cfg.PublicURL,
		ImageClient: cfg.EmailImageClient}
	s.Contacts = &contact.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Cursors: cursors}
	s.Conversations = &conversation.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Cursors: cursors, Files: s.Files}
	s.Inbound = &inbound.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Display: mail.Display{RemoteImages: cfg.EmailRemoteImages}}
	links := mail.Links{Secrets: secrets, PublicURL: cfg.PublicURL}
	dkim := mail.DKIMKeys{Seal: cfg.Seal}
	s.Sends = &send.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Files: s.Files, Adapters: cfg.Adapters,
		Credentials: vault, Refresher: cfg.Refresher, ProviderTimeout: cfg.ProviderTimeout,
		UnknownAfter: cfg.ProviderUnknownAfter, Pacer: cfg.Pacer, Cursors: cursors,
		Email:     &mail.Envelope{Keys: dkim, Links: links, ReturnPath: cfg.Mail.ReturnPath},
		SenderDNS: mail.DNS{Store: cfg.Store, Keys: dkim, Settings: cfg.Mail}}
	s.Usage = &send.Usage{Store: cfg.Store, Clock: cfg.Clock}
	s.Channels = &credentials.Channels{Store: cfg.Store}
	s.Connections = connections(cfg, vault)
	var timeout time.Duration
	if cfg.AI != nil {
		timeout = cfg.AI.Timeout
	}
	s.AI = &ai.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Sends: s.Sends,
		Responder: cfg.AI.responder(), Jobs: cfg.Jobs, Timeout: timeout, Typing: cfg.Typing,
		Visitors: cfg.VisitorTypingFeed}
	s.Webhooks = &webhook.Service{Store: cfg.Store, Jobs: cfg.Jobs, Clock: cfg.Clock, Cursors: cursors, Secrets: secrets, Config: cfg.Webhooks}
	if cfg.Jobs != nil {
		s.Webhooks.Recoveries = cfg.Jobs
	}
	s.MetaHooks = &metahook.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Inbound: s.Inbound,
		Vault: vault, WhatsApp: cfg.WhatsApp, Queue: cfg.Jobs,
		Instagram: &instagram.Service{Inbound: s.Inbound, Store: cfg.Store, Events: events, Media: igMedia}}
	s.Media = &metahook.Media{Store: cfg.Store, Vault: vault, WhatsApp: cfg.WhatsApp, Instagram: igMedia}
	s.Mail = &mail.Processor{Store: cfg.Store, Clock: cfg.Clock, Events: events, Inbound: s.Inbound, ReturnPath: cfg.Mail.ReturnPath}
	s.Inbox = &mail.Inbox{Store: cfg.Store, Queue: cfg.Jobs, Clock: cfg.Clock, ReturnPath: cfg.Mail.ReturnPath}
	s.Unsubscriber = &mail.Unsubscriber{Store: cfg.Store, Links: links, Clock: cfg.Clock, Events: events}
	s.Notices = &mail.Notices{Store: cfg.Store, Clock: cfg.Clock}
	if a, ok := cfg.Adapters["email"].(*email.Adapter); ok && a.Relay != nil {
		s.Notices.Relay, s.Notices.Hostname, s.Notices.Timeout = a.Relay, a.Relay.Hostname, a.Timeout
	}
	// People answers RequireStepUp: hand it to the services that need it.
	s.People = &member.Service{Store: cfg.Store, Clock: cfg.Clock, Secret: cfg.Secret, Mail: s.Notices,
		Development: cfg.Development, Sent: cfg.MemberMailSent}
	if cfg.MemberMail != nil {
		s.People.Mail = cfg.MemberMail
	}
	s.Visitors = &visitor.Service{Store: cfg.Store, Clock: cfg.Clock, Events: events, Inbound: s.Inbound,
		Files: s.Files, Seal: cfg.Seal}
	if p, ok := cfg.Adapters["instagram"].(instagram.TokenRefresher); ok {
		s.InstagramTokens = &instagram.Tokens{Store: cfg.Store, Vault: vault, Provider: p, Clock: cfg.Clock}
	}
	s.AgentInbox = &inbox.Service{Store: cfg.Store, Notes: cfg.Store, Members: inbox.AgentMembers{Store: cfg.Store},
		Clock: cfg.Clock, Cursors: cursors, Bus: cfg.InboxBus, Typing: s.AI}
	var stream eventstream.Store = cfg.Store
	if cfg.StreamHorizon != nil {
		stream = cfg.StreamHorizon
	}
	s.EventStream = &eventstream.Service{Store: stream, Expired: s.Webhooks.Expired}
	s.Webhooks.StepUp = s.People
	s.APIKeys = &apikey.Service{Store: cfg.Store, Clock: cfg.Clock, StepUp: s.People,
		Changes: auth.KeyChangeNotifier{Cache: cfg.KeyCache, Redis: cfg.KeyChangeRedis}}
	s.ChannelsOverview = &credentials.Overview{Channels: s.Channels, Usage: s.Usage, Senders: s.Sends, PublicURL: cfg.PublicURL}
	s.RequestLogs = &requestlog.Service{Store: cfg.Store, Clock: cfg.Clock, Cursors: cursors,
		Retention: cfg.Webhooks.RetentionPeriod()}
	return s
}

// connections connects provider credentials: the live adapters subscribe
// the app to a connected account's webhooks; the Instagram one also
// verifies its credentials.
func connections(cfg Config, vault credentials.Vault) *credentials.Connections {
	subscribers := map[string]credentials.Subscriber{}
	for _, ch := range []string{"whatsapp", "instagram"} {
		if sub, ok := cfg.Adapters[ch].(credentials.Subscriber); ok {
			subscribers[ch] = sub
		}
	}
	c := &credentials.Connections{Store: cfg.Store, Vault: vault, Clock: cfg.Clock, Refresher: cfg.Refresher,
		Subscribers: subscribers}
	if p, ok := cfg.Adapters["instagram"].(instagram.Provider); ok {
		c.Instagram = &instagram.Connector{Provider: p, Clock: cfg.Clock}
	}
	return c
}
