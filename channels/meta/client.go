// Package meta speaks the Meta Graph API that the WhatsApp Cloud API and
// Instagram messaging share: a small JSON client (base URL, path version,
// bearer token, one timeout per call), the error envelope mapped to a
// *channels.Refusal, the X-Hub-Signature-256 check of
// webhooks, and the webhook payload parsed into typed events. It knows no
// database and no API rule: channels/whatsapp and channels/instagram build
// their adapters on it, and the /hooks/meta intake parses with it.
package meta

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/msgsvc/msgsvc/internal/egress"
)

// Defaults of the operator configuration.
const (
	DefaultGraphURL     = "https://graph.facebook.com"
	DefaultInstagramURL = "https://graph.instagram.com"
	DefaultVersion      = "v24.0"
	DefaultTimeout      = 15 * time.Second
)

// maxAnswer bounds a JSON answer of the Graph API; media bytes have their
// own bound (MaxMediaSize).
const maxAnswer = 8 << 20

// Config is what the adapters need of the operator configuration. Empty
// fields take the defaults above.
type Config struct {
	// GraphURL is MSGSVC_META_GRAPH_URL: WhatsApp, and Instagram accounts
	// on Facebook Login.
	GraphURL string
	// InstagramURL is MSGSVC_INSTAGRAM_GRAPH_URL: Instagram accounts on
	// Instagram Login.
	InstagramURL string
	// Version is MSGSVC_META_API_VERSION, the path version of both.
	Version string
	// Timeout is MSGSVC_PROVIDER_TIMEOUT, the limit of one call.
	Timeout time.Duration
	// HTTP is the client to use (nil: the guarded client, GuardedClient);
	// tests give one to reach a stand-in as if it were Meta's CDN.
	HTTP *http.Client
	// Logger receives one line per call (nil: slog.Default()).
	Logger *slog.Logger
	// AppSecret, when set, adds appsecret_proof to every call
	// (MSGSVC_META_APPSECRET_PROOF with MSGSVC_META_APP_SECRET); see
	// Client.AppSecret.
	AppSecret string
}

// Graph is a client of the Graph API at the Meta host (GraphURL).
func (c Config) Graph() *Client { return c.client(c.GraphURL, DefaultGraphURL) }

// Instagram is a client of the Graph API at the Instagram host
// (InstagramURL).
func (c Config) Instagram() *Client { return c.client(c.InstagramURL, DefaultInstagramURL) }

func (c Config) client(base, def string) *Client {
	if base == "" {
		base = def
	}
	cl := &Client{BaseURL: strings.TrimRight(base, "/"), Version: c.Version, Timeout: c.Timeout, HTTP: c.HTTP, Logger: c.Logger,
		AppSecret: c.AppSecret}
	if cl.Version == "" {
		cl.Version = DefaultVersion
	}
	if cl.Timeout <= 0 {
		cl.Timeout = DefaultTimeout
	}
	if cl.HTTP == nil {
		cl.HTTP = c.GuardedClient(cl.Timeout)
	}
	if cl.Logger == nil {
		cl.Logger = slog.Default()
	}
	return cl
}

// Client calls one Graph API host. Every failure it returns is an *Error,
// which errors.As also turns into the *channels.Refusal it maps to.
type Client struct {
	BaseURL string
	Version string
	Timeout time.Duration
	HTTP    *http.Client
	Logger  *slog.Logger
	// AppSecret, when set, is the secret of the app whose token a call
	// carries: every call to BaseURL's host gets appsecret_proof, the hex
	// HMAC-SHA256 of the token keyed by it, in its query, as an app with
	// "Require App Secret" demands
	// (https://developers.facebook.com/docs/graph-api/securing-requests/).
	// A client per app secret (WithAppSecret) serves accounts of several
	// apps.
	AppSecret string
}

// WithAppSecret is a copy of the client that proves calls with another
// app's secret ("" proves none).
func (c *Client) WithAppSecret(secret string) *Client {
	cp := *c
	cp.AppSecret = secret
	return &cp
}

// AppSecretProof is appsecret_proof of a token: the hex HMAC-SHA256 of the
// token keyed by the app secret.
func AppSecretProof(appSecret, token string) string {
	m := hmac.New(sha256.New, []byte(appSecret))
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))
}

// prove adds appsecret_proof to a call of the Graph API host: never to
// another host (a media CDN URL is signed as it is). The token is the
// bearer one, or the access_token of the query (refresh_access_token).
func (c *Client) prove(target, token string) string {
	if c.AppSecret == "" {
		return target
	}
	u, err := url.Parse(target)
	base, berr := url.Parse(c.BaseURL)
	if err != nil || berr != nil || u.Host != base.Host {
		return target
	}
	q := u.Query()
	if token == "" {
		token = q.Get("access_token")
	}
	if token == "" {
		return target
	}
	q.Set("appsecret_proof", AppSecretProof(c.AppSecret, token))
	u.RawQuery = q.Encode()
	return u.String()
}

// URL is the address of a path under the version, such as
// URL("106540352242922", "messages"). Path segments are escaped.
func (c *Client) URL(segments ...string) string {
	var b strings.Builder
	b.WriteString(c.BaseURL)
	b.WriteString("/")
	b.WriteString(url.PathEscape(c.Version))
	for _, s := range segments {
		b.WriteString("/")
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// PostJSON posts body as JSON to the path and decodes the answer into out.
func (c *Client) PostJSON(ctx context.Context, token string, body, out any, segments ...string) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("meta: encoding the request: %w", err)
	}
	return c.Do(ctx, http.MethodPost, c.URL(segments...), token, "application/json", bytes.NewReader(raw), out)
}

// GetJSON gets the path with the query and decodes the answer into out.
func (c *Client) GetJSON(ctx context.Context, token string, query url.Values, out any, segments ...string) error {
	u := c.URL(segments...)
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return c.Do(ctx, http.MethodGet, u, token, "", nil, out)
}

// Do sends one request with the bearer token under the client's timeout and
// decodes a JSON answer into out (nil: the answer is discarded). A non-2xx
// answer, a timeout or a connection error is an *Error.
func (c *Client) Do(ctx context.Context, method, target, token, contentType string, body io.Reader, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	started := time.Now()
	answer, err := c.exchange(ctx, method, target, token, contentType, body, maxAnswer)
	c.log(method, target, answer, err, time.Since(started))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer.body, out); err != nil {
		// Meta took the request (2xx) but what it said is lost.
		return &Error{HTTPStatus: answer.status, Unanswered: true, Message: "the provider's answer is not the JSON it documents", Err: err}
	}
	return nil
}

// Fetch gets raw bytes (a media file) with the bearer token, reading at
// most limit bytes; a longer body is an error. It is given fetchTimeout.
func (c *Client) Fetch(ctx context.Context, target, token string, limit int64) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.fetchTimeout(limit))
	defer cancel()
	started := time.Now()
	answer, err := c.exchange(ctx, http.MethodGet, target, token, "", nil, limit)
	c.log(http.MethodGet, target, answer, err, time.Since(started))
	if err != nil {
		return nil, "", err
	}
	return answer.body, answer.contentType, nil
}

// fetchTimeout bounds a fetch of up to limit bytes: the call's timeout and
// one second more per MiB it may read, so a 100 MB document over a slow
// link is not cut off at the time a JSON answer is given.
func (c *Client) fetchTimeout(limit int64) time.Duration {
	return c.Timeout + time.Duration(limit>>20)*time.Second
}

type answer struct {
	status      int
	contentType string
	body        []byte
}

func (c *Client) exchange(ctx context.Context, method, target, token, contentType string, body io.Reader, limit int64) (*answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.prove(target, token), body)
	if err != nil {
		return nil, &Error{Message: "the request could not be built", Err: err}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	// Whether the request was written tells a refusal (nothing reached
	// Meta: a dial refused, a DNS failure) from an unknown outcome.
	var written atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { written.Store(written.Load() || i.Err == nil) },
	}))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, transportError(ctx, err, written.Load(), c.where(target), c.Timeout)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		// A refusal's status is a refusal however its body ends; an
		// acceptance whose body broke off lost the id Meta gave.
		e := transportError(ctx, err, resp.StatusCode >= 200 && resp.StatusCode <= 299, c.where(target), c.Timeout)
		e.HTTPStatus = resp.StatusCode
		return nil, e
	}
	a := &answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: raw}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return a, errorFromAnswer(resp, raw)
	}
	if int64(len(raw)) > limit {
		// Taken (2xx), but the answer with the id Meta gave is not read.
		return a, &Error{HTTPStatus: resp.StatusCode, Unanswered: true, Message: fmt.Sprintf("the provider's answer exceeds %d bytes", limit)}
	}
	return a, nil
}

// where names the provider of a call for an operator by its host (never
// the path or query: a paging or media URL may carry a token): "the
// provider (graph.facebook.com)".
func (c *Client) where(target string) string {
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		return "the provider (" + u.Host + ")"
	}
	return "the provider"
}

// transportError describes a failed exchange of the provider named by
// where, without its URL; written says the request went out whole, so the
// provider may have acted on it. The cause is named (egress.Cause): DNS,
// refused, reset, TLS, timeout, or the guard's refusal.
func transportError(ctx context.Context, err error, written bool, where string, timeout time.Duration) *Error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("%s did not answer within %s (timeout)", where, timeout)
		if !written {
			msg = fmt.Sprintf("%s could not be reached within %s (timeout)", where, timeout)
		}
		return &Error{Timeout: true, Unanswered: written, Message: msg, Err: errors.Unwrap(err)}
	case errors.Is(err, context.Canceled):
		return &Error{Unanswered: written, Message: "the call was cancelled", Err: context.Canceled}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var refused *egress.Error
	if errors.As(err, &refused) {
		// msgsvc refused: the request, or the redirect, never left.
		return &Error{Message: refused.Error(), Err: err}
	}
	if written {
		return &Error{Unanswered: true, Message: "the connection to " + where + " was lost after the request was sent: " + egress.Cause(err), Err: err}
	}
	return &Error{Message: where + " could not be reached: " + egress.Cause(err), Err: err}
}

// log writes one line per call: method, path (no query: it may carry a
// token), status, Meta's code and trace id, and the duration. Never a body.
func (c *Client) log(method, target string, a *answer, err error, d time.Duration) {
	path := target
	if u, perr := url.Parse(target); perr == nil {
		path = u.Host + u.Path
	}
	attrs := []any{slog.String("method", method), slog.String("path", path), slog.Duration("duration", d)}
	if a != nil {
		attrs = append(attrs, slog.Int("status", a.status))
	}
	var e *Error
	if errors.As(err, &e) {
		attrs = append(attrs, slog.Int("meta_code", e.Code), slog.Int("meta_subcode", e.Subcode),
			slog.String("fbtrace_id", e.FBTraceID), slog.String("error", e.Message))
		c.Logger.Warn("meta: provider call failed", attrs...)
		return
	}
	c.Logger.Debug("meta: provider call", attrs...)
}
