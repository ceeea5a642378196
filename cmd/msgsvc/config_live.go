package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/seal"
)

// LiveConfig is the operator configuration of the live channels, own
// processing and operations. Every provider base URL is
// configurable so tests and staging point at a local stand-in.
type LiveConfig struct {
	MetaGraphURL      string // MSGSVC_META_GRAPH_URL
	InstagramGraphURL string // MSGSVC_INSTAGRAM_GRAPH_URL
	MetaAPIVersion    string // MSGSVC_META_API_VERSION
	// MetaAppSecret keys X-Hub-Signature-256 on /hooks/meta; empty means
	// /hooks/meta answers 503.
	MetaAppSecret string
	// MetaAppSecretProof (MSGSVC_META_APPSECRET_PROOF) adds appsecret_proof,
	// made with MetaAppSecret, to every Graph API call of WhatsApp.
	MetaAppSecretProof bool
	MetaVerifyToken    string        // MSGSVC_META_VERIFY_TOKEN
	ProviderTimeout    time.Duration // MSGSVC_PROVIDER_TIMEOUT
	// ProviderUnknownAfter is how long a send whose provider call got no
	// answer waits for a status before it fails as provider_unknown.
	ProviderUnknownAfter time.Duration // MSGSVC_PROVIDER_UNKNOWN_AFTER
	TemplateSyncEvery    time.Duration // MSGSVC_TEMPLATE_SYNC_EVERY
	// SMTPRelay is the outbound relay (nil: live email answers 503).
	SMTPRelay *url.URL
	SMTPAddr  string // MSGSVC_SMTP_ADDR; empty turns the listener off
	// SMTPHostname is MSGSVC_SMTP_HOSTNAME, by default the host of
	// MSGSVC_PUBLIC_URL (email.HelloName): the EHLO name and the banner.
	SMTPHostname string
	// SMTPTLSCert and SMTPTLSKey (MSGSVC_SMTP_TLS_CERT, _KEY: PEM files)
	// make the listener offer STARTTLS.
	SMTPTLSCert, SMTPTLSKey string
	// EmailRemoteImages is MSGSVC_EMAIL_REMOTE_IMAGES: block (default),
	// allow or proxy remote images in inbound mail's html.
	EmailRemoteImages string
	// SMTP is the rest of the email settings (config_email.go).
	SMTP SMTPSettings
	// AIURL is an OpenAI-compatible API base; empty uses the built-in
	// responder.
	AIURL, AIModel, AIAPIKey string
	// WidgetRateLimit is visitor messages per minute per visitor.
	WidgetRateLimit int
	// WhatsAppPace spaces one number's sends at this many a second
	// (MSGSVC_WHATSAPP_PACE); 0, the default, paces nothing.
	WhatsAppPace int
	// Rates of the pacer of queued messages (send.Rates), a second per
	// account: MSGSVC_WHATSAPP_THROUGHPUT (a number whose tier Meta does
	// not tell), MSGSVC_INSTAGRAM_SEND_RATE, MSGSVC_EMAIL_SEND_RATE.
	WhatsAppThroughput, InstagramSendRate, EmailSendRate int
	MetricsAddr                                          string // MSGSVC_METRICS_ADDR
	LogFormat                                            string // "text" or "json"
}

// loadLive reads the providers' variables (docs/configuration.md);
// secrets are MSGSVC_SECRET's, from
// which the sealing keys are derived (sealKey).
func loadLive(get func(name, def string) string, env string, secrets []string) (LiveConfig, seal.Key, error) {
	c := LiveConfig{
		MetaAPIVersion:  get("MSGSVC_META_API_VERSION", "v24.0"),
		MetaAppSecret:   get("MSGSVC_META_APP_SECRET", ""),
		MetaVerifyToken: get("MSGSVC_META_VERIFY_TOKEN", ""),
		SMTPAddr:        get("MSGSVC_SMTP_ADDR", ""),
		SMTPHostname:    get("MSGSVC_SMTP_HOSTNAME", ""),
		SMTPTLSCert:     get("MSGSVC_SMTP_TLS_CERT", ""),
		SMTPTLSKey:      get("MSGSVC_SMTP_TLS_KEY", ""),
		AIModel:         get("MSGSVC_AI_MODEL", ""),
		AIAPIKey:        get("MSGSVC_AI_API_KEY", ""),
		MetricsAddr:     get("MSGSVC_METRICS_ADDR", "127.0.0.1:9464"),
	}
	var err error
	for _, u := range []struct {
		name, def string
		into      *string
	}{
		{"MSGSVC_META_GRAPH_URL", "https://graph.facebook.com", &c.MetaGraphURL},
		{"MSGSVC_INSTAGRAM_GRAPH_URL", "https://graph.instagram.com", &c.InstagramGraphURL},
		{"MSGSVC_AI_URL", "", &c.AIURL},
	} {
		if *u.into, err = httpURL(u.name, get(u.name, u.def)); err != nil {
			return c, seal.Key{}, err
		}
	}
	if !strings.HasPrefix(c.MetaAPIVersion, "v") {
		return c, seal.Key{}, fmt.Errorf("MSGSVC_META_API_VERSION: %q is not a version like v24.0", c.MetaAPIVersion)
	}
	for _, d := range []struct {
		name, def string
		into      *time.Duration
	}{
		{"MSGSVC_PROVIDER_TIMEOUT", "15s", &c.ProviderTimeout},
		{"MSGSVC_PROVIDER_UNKNOWN_AFTER", "15m", &c.ProviderUnknownAfter},
		{"MSGSVC_TEMPLATE_SYNC_EVERY", "15m", &c.TemplateSyncEvery},
	} {
		v, err := time.ParseDuration(get(d.name, d.def))
		if err != nil || v <= 0 {
			return c, seal.Key{}, fmt.Errorf("%s: %q is not a positive duration like 15s or 15m", d.name, get(d.name, d.def))
		}
		*d.into = v
	}
	if c.EmailRemoteImages = strings.ToLower(get("MSGSVC_EMAIL_REMOTE_IMAGES", email.RemoteImagesBlock)); c.EmailRemoteImages != email.RemoteImagesBlock &&
		c.EmailRemoteImages != email.RemoteImagesAllow && c.EmailRemoteImages != email.RemoteImagesProxy {
		return c, seal.Key{}, fmt.Errorf("MSGSVC_EMAIL_REMOTE_IMAGES: %q is not block, allow or proxy", c.EmailRemoteImages)
	}
	if c.MetaAppSecretProof, err = appSecretProof(get("MSGSVC_META_APPSECRET_PROOF", "false"), c.MetaAppSecret); err != nil {
		return c, seal.Key{}, err
	}
	if c.SMTPRelay, err = smtpRelay(get("MSGSVC_SMTP_RELAY", "")); err != nil {
		return c, seal.Key{}, err
	}
	if c.SMTP, err = loadSMTP(get); err == nil {
		err = smtpOrphans(c)
	}
	if err != nil {
		return c, seal.Key{}, err
	}
	for name, addr := range map[string]string{"MSGSVC_SMTP_ADDR": c.SMTPAddr, "MSGSVC_METRICS_ADDR": c.MetricsAddr} {
		if _, _, err := net.SplitHostPort(addr); addr != "" && err != nil {
			return c, seal.Key{}, fmt.Errorf("%s: %q is not host:port", name, addr)
		}
	}
	if c.WidgetRateLimit, err = strconv.Atoi(get("MSGSVC_WIDGET_RATE_LIMIT", "30")); err != nil || c.WidgetRateLimit <= 0 {
		return c, seal.Key{}, fmt.Errorf("MSGSVC_WIDGET_RATE_LIMIT: %q is not a positive whole number", get("MSGSVC_WIDGET_RATE_LIMIT", "30"))
	}
	if err := loadSendRates(get, &c); err != nil {
		return c, seal.Key{}, err
	}
	def := "text"
	if env == "production" {
		def = "json"
	}
	if c.LogFormat = get("MSGSVC_LOG_FORMAT", def); c.LogFormat != "text" && c.LogFormat != "json" {
		return c, seal.Key{}, fmt.Errorf("MSGSVC_LOG_FORMAT: %q is not text or json", c.LogFormat)
	}
	key, err := sealKey(get("MSGSVC_ENCRYPTION_KEY", ""), secrets)
	return c, key, err
}

// smtpOrphans refuses email settings that act only with another one that
// is not set, rather than ignoring them.
func smtpOrphans(c LiveConfig) error {
	switch {
	case c.SMTP.OAuth.TokenURL != "" && c.SMTPRelay == nil:
		return errors.New("MSGSVC_SMTP_OAUTH_TOKEN_URL: it authenticates to MSGSVC_SMTP_RELAY, which is not set")
	case (c.SMTPTLSCert != "" || c.SMTPTLSKey != "") && c.SMTPAddr == "":
		return errors.New("MSGSVC_SMTP_TLS_CERT, MSGSVC_SMTP_TLS_KEY: they serve the inbound listener, and MSGSVC_SMTP_ADDR is not set")
	}
	return nil
}

// sealKey is the ring of MSGSVC_ENCRYPTION_KEY (comma-separated keys: the
// first seals, every one opens) followed by the keys derived from each
// MSGSVC_SECRET, which open too: unset, the first secret's key seals, and
// values sealed before MSGSVC_ENCRYPTION_KEY was set still open (until
// msgsvc rekey re-seals them).
func sealKey(encoded string, secrets []string) (seal.Key, error) {
	var keys []seal.Key
	if encoded != "" {
		list := strings.Split(encoded, ",")
		for i, e := range list {
			var k seal.Key
			err := errors.New("an empty key in the list")
			if e = strings.TrimSpace(e); e != "" {
				k, err = seal.New(e, "")
			}
			if err != nil && len(list) > 1 {
				return seal.Key{}, fmt.Errorf("MSGSVC_ENCRYPTION_KEY: key %d of the list: %w", i+1, err)
			}
			if err != nil {
				return seal.Key{}, fmt.Errorf("MSGSVC_ENCRYPTION_KEY: %w", err)
			}
			keys = append(keys, k)
		}
	}
	for _, s := range secrets {
		k, err := seal.New("", s)
		if err != nil {
			return seal.Key{}, fmt.Errorf("MSGSVC_ENCRYPTION_KEY: %w", err)
		}
		keys = append(keys, k)
	}
	return seal.Ring(keys...), nil
}

func httpURL(name, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not quoted: the value may hold a password.
		return "", fmt.Errorf("%s: not an http(s) URL such as https://host/path", name)
	}
	return strings.TrimRight(v, "/"), nil
}

// smtpRelay checks MSGSVC_SMTP_RELAY: smtp://[user:pass@]host:port
// (STARTTLS required unless ?tls=none) or smtps://…:465 (implicit TLS).
func smtpRelay(v string) (*url.URL, error) {
	if v == "" {
		return nil, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Port() == "" {
		return nil, fmt.Errorf("MSGSVC_SMTP_RELAY: not a relay like smtp://user:pass@host:587 or smtps://host:465")
	}
	if tls := u.Query().Get("tls"); tls != "" && (tls != "none" || u.Scheme != "smtp") {
		return nil, fmt.Errorf("MSGSVC_SMTP_RELAY: tls=%s is not understood (only smtp://…?tls=none, for development)", tls)
	}
	return u, nil
}

// appSecretProof reads MSGSVC_META_APPSECRET_PROOF: true needs the app
// secret it proves calls with.
func appSecretProof(raw, appSecret string) (bool, error) {
	on, err := strconv.ParseBool(raw)
	switch {
	case err != nil:
		return false, fmt.Errorf("MSGSVC_META_APPSECRET_PROOF: %q is not true or false", raw)
	case on && appSecret == "":
		return false, errors.New("MSGSVC_META_APPSECRET_PROOF: appsecret_proof needs MSGSVC_META_APP_SECRET")
	}
	return on, nil
}

// loadSendRates reads the pacing of synchronous WhatsApp sends and the
// rates of the pacer of queued messages (send.Rates).
func loadSendRates(get func(name, def string) string, c *LiveConfig) error {
	var err error
	if c.WhatsAppPace, err = strconv.Atoi(get("MSGSVC_WHATSAPP_PACE", "0")); err != nil || c.WhatsAppPace < 0 {
		return fmt.Errorf("MSGSVC_WHATSAPP_PACE: %q is not a whole number of messages a second (0: no pacing)", get("MSGSVC_WHATSAPP_PACE", "0"))
	}
	for _, r := range []struct {
		name, def string
		to        *int
	}{{"MSGSVC_WHATSAPP_THROUGHPUT", "80", &c.WhatsAppThroughput}, {"MSGSVC_INSTAGRAM_SEND_RATE", "10", &c.InstagramSendRate},
		{"MSGSVC_EMAIL_SEND_RATE", "10", &c.EmailSendRate}} {
		if *r.to, err = strconv.Atoi(get(r.name, r.def)); err != nil || *r.to <= 0 || *r.to > 10000 {
			return fmt.Errorf("%s: %q is not a whole number of messages a second from 1 to 10000", r.name, get(r.name, r.def))
		}
	}
	return nil
}
