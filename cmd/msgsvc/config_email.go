package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/mail"
)

// SMTPSettings are the email variables beside the relay's URL.
type SMTPSettings struct {
	// ReturnPathDomain is MSGSVC_SMTP_RETURN_PATH_DOMAIN, such as
	// "bounces.{domain}" ("": the sending domain).
	ReturnPathDomain string
	// OAuth is the relay's XOAUTH2 client (MSGSVC_SMTP_OAUTH_*); its
	// TokenURL is "" without one.
	OAuth email.OAuthConfig
	// The inbound listener's limits: MSGSVC_SMTP_DATA_TIMEOUT,
	// MSGSVC_SMTP_MAX_READING_PER_IP and MSGSVC_SMTP_MAX_SESSIONS_PER_IP.
	DataTimeout                 time.Duration
	ReadingPerIP, SessionsPerIP int
}

// loadListenerLimits reads the inbound listener's limits.
func (s *SMTPSettings) loadListenerLimits(get func(name, def string) string) error {
	var err error
	v := get("MSGSVC_SMTP_DATA_TIMEOUT", email.DataTimeout.String())
	if s.DataTimeout, err = time.ParseDuration(v); err != nil || s.DataTimeout < time.Second || s.DataTimeout > time.Hour {
		return fmt.Errorf("MSGSVC_SMTP_DATA_TIMEOUT: %q is not a duration from 1s to 1h", v)
	}
	v = get("MSGSVC_SMTP_MAX_READING_PER_IP", strconv.Itoa(email.MaxMailsReadingPerIP))
	if s.ReadingPerIP, err = strconv.Atoi(v); err != nil || s.ReadingPerIP < 1 || s.ReadingPerIP > email.MaxMailsReading {
		return fmt.Errorf("MSGSVC_SMTP_MAX_READING_PER_IP: %q is not a number from 1 to %d", v, email.MaxMailsReading)
	}
	v = get("MSGSVC_SMTP_MAX_SESSIONS_PER_IP", strconv.Itoa(email.MaxSessionsPerIP))
	if s.SessionsPerIP, err = strconv.Atoi(v); err != nil || s.SessionsPerIP < 1 || s.SessionsPerIP > 10000 {
		return fmt.Errorf("MSGSVC_SMTP_MAX_SESSIONS_PER_IP: %q is not a number from 1 to 10000", v)
	}
	return nil
}

// loadSMTP reads and checks the SMTPSettings.
func loadSMTP(get func(name, def string) string) (SMTPSettings, error) {
	s := SMTPSettings{ReturnPathDomain: strings.ToLower(get("MSGSVC_SMTP_RETURN_PATH_DOMAIN", ""))}
	if err := mail.CheckReturnPathTemplate(s.ReturnPathDomain); err != nil {
		return s, fmt.Errorf("MSGSVC_SMTP_RETURN_PATH_DOMAIN: %q %w", s.ReturnPathDomain, err)
	}
	if err := s.loadListenerLimits(get); err != nil {
		return s, err
	}
	s.OAuth = email.OAuthConfig{TokenURL: get("MSGSVC_SMTP_OAUTH_TOKEN_URL", ""),
		ClientID: get("MSGSVC_SMTP_OAUTH_CLIENT_ID", ""), ClientSecret: get("MSGSVC_SMTP_OAUTH_CLIENT_SECRET", ""),
		RefreshToken: get("MSGSVC_SMTP_OAUTH_REFRESH_TOKEN", ""), Scope: get("MSGSVC_SMTP_OAUTH_SCOPE", "")}
	if s.OAuth.TokenURL == "" {
		if s.OAuth.ClientID != "" || s.OAuth.ClientSecret != "" || s.OAuth.RefreshToken != "" {
			return s, errors.New("MSGSVC_SMTP_OAUTH_CLIENT_ID, _SECRET and _REFRESH_TOKEN need MSGSVC_SMTP_OAUTH_TOKEN_URL")
		}
		return s, nil
	}
	u, err := url.Parse(s.OAuth.TokenURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
		return s, errors.New("MSGSVC_SMTP_OAUTH_TOKEN_URL: not an https:// URL (such as https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token)")
	}
	if s.OAuth.ClientID == "" {
		return s, errors.New("MSGSVC_SMTP_OAUTH_CLIENT_ID: required with MSGSVC_SMTP_OAUTH_TOKEN_URL")
	}
	return s, nil
}

// isLoopback says host is this machine (plain http is for tests there).
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// emailAdapter is the live email adapter over MSGSVC_SMTP_RELAY, or nil
// without a relay (live email then answers 503 channel_unavailable).
func emailAdapter(c LiveConfig, now func() time.Time) (*email.Adapter, error) {
	if c.SMTPRelay == nil {
		return nil, nil
	}
	relay, err := email.ParseRelay(c.SMTPRelay.String())
	if err != nil {
		return nil, fmt.Errorf("MSGSVC_SMTP_RELAY: %w", err)
	}
	relay.Hostname = c.SMTPHostname
	if c.SMTP.OAuth.TokenURL != "" {
		if relay.Username == "" || relay.TLS == email.None {
			return nil, errors.New("MSGSVC_SMTP_OAUTH_TOKEN_URL: MSGSVC_SMTP_RELAY must name the mailbox as its user (smtp://mailer%40acme.com@host:587), over TLS")
		}
		relay.Tokens = &email.OAuthClient{OAuthConfig: c.SMTP.OAuth, HTTP: &http.Client{Timeout: c.ProviderTimeout}, Now: now}
	}
	return &email.Adapter{Relay: relay, Now: now, Timeout: c.ProviderTimeout}, nil
}

// wireEmail gives the services the live email adapter when a relay is set.
func wireEmail(cfg LiveConfig, g *graph.Config) error {
	g.Mail = mail.Settings{ReturnPath: mail.ReturnPath{Template: cfg.SMTP.ReturnPathDomain}, MXHost: cfg.SMTPHostname}
	if cfg.SMTPRelay != nil {
		g.Mail.RelayHost = cfg.SMTPRelay.Hostname()
	}
	mailer, err := emailAdapter(cfg, g.Clock)
	if err != nil || mailer == nil {
		return err
	}
	if g.Adapters == nil {
		g.Adapters = map[string]channels.Adapter{}
	}
	g.Adapters["email"] = mailer
	return nil
}

// serveMail runs the inbound SMTP listener on MSGSVC_SMTP_ADDR until ctx
// ends (nothing when it is empty).
func serveMail(ctx context.Context, cfg LiveConfig, inbox *mail.Inbox, errs chan<- error) error {
	if cfg.SMTPAddr == "" {
		return nil
	}
	tlsConfig, err := listenerTLS(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.SMTPAddr)
	if err != nil {
		return fmt.Errorf("MSGSVC_SMTP_ADDR: %w", err)
	}
	l := &email.Listener{Inbox: inbox, Hostname: cfg.SMTPHostname, TLSConfig: tlsConfig,
		DataTimeout: cfg.SMTP.DataTimeout, MaxReadingPerIP: cfg.SMTP.ReadingPerIP, MaxSessionsPerIP: cfg.SMTP.SessionsPerIP}
	go func() {
		if err := l.Serve(ctx, ln); err != nil {
			errs <- fmt.Errorf("MSGSVC_SMTP_ADDR: %w", err)
		}
	}()
	slog.Info("inbound smtp listening", "addr", cfg.SMTPAddr)
	return nil
}

// listenerTLS is the listener's STARTTLS configuration from
// MSGSVC_SMTP_TLS_CERT and MSGSVC_SMTP_TLS_KEY (nil when neither is set).
// The files are read at start: restart after renewing the certificate.
func listenerTLS(cfg LiveConfig) (*tls.Config, error) {
	if cfg.SMTPTLSCert == "" && cfg.SMTPTLSKey == "" {
		return nil, nil
	}
	if cfg.SMTPTLSCert == "" || cfg.SMTPTLSKey == "" {
		return nil, fmt.Errorf("MSGSVC_SMTP_TLS_CERT and MSGSVC_SMTP_TLS_KEY: set both or neither")
	}
	cert, err := tls.LoadX509KeyPair(cfg.SMTPTLSCert, cfg.SMTPTLSKey)
	if err != nil {
		return nil, fmt.Errorf("MSGSVC_SMTP_TLS_CERT, MSGSVC_SMTP_TLS_KEY: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
