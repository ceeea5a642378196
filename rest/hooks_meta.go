package rest

import (
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// MetaHooks configures /hooks/meta.
type MetaHooks struct {
	// AppSecret keys X-Hub-Signature-256 (MSGSVC_META_APP_SECRET); empty
	// answers 503.
	AppSecret string
	// VerifyToken is the hub.verify_token the GET handshake accepts
	// (MSGSVC_META_VERIFY_TOKEN).
	VerifyToken string
}

// maxMetaHook bounds a webhook body; Meta's are a few kilobytes (a batch
// of changes stays far below it). /hooks/meta needs no key, so a larger
// one is refused before it is read (see readBounded).
const maxMetaHook = 4 << 20

// metaHandshake answers Meta's subscription check with the challenge when
// the verify token matches.
func (s *Server) metaHandshake(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	token := q.Get("hub.verify_token")
	if s.Meta.VerifyToken == "" || q.Get("hub.mode") != "subscribe" ||
		subtle.ConstantTimeCompare([]byte(token), []byte(s.Meta.VerifyToken)) != 1 {
		http.Error(w, "verify token mismatch", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, q.Get("hub.challenge"))
}

// metaHook checks the signature over the raw bytes before anything else,
// stores the payload and answers 200; a job processes it.
func (s *Server) metaHook(w http.ResponseWriter, r *http.Request) {
	raw, err := readBounded(r.Body, r.ContentLength, maxMetaHook)
	switch {
	case errors.Is(err, errTooLarge):
		// Closing tells the server not to read the rest of the body.
		w.Header().Set("Connection", "close")
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	case timedOut(err):
		http.Error(w, "body did not arrive in time", http.StatusRequestTimeout)
		return
	case err != nil:
		http.Error(w, "body unreadable", http.StatusBadRequest)
		return
	}
	if !s.metaSigned(w, r, raw) {
		return
	}
	id, err := s.Resolver.MetaHooks.Accept(r.Context(), raw)
	if err != nil {
		// Meta retries a hook it got no 200 for: whatever kept it from
		// being stored (an outage, mostly), the answer is "retry later",
		// never 500.
		log := slog.Error
		if unavailable(err) {
			log = slog.Warn
		}
		log("meta hook not stored; Meta retries it", "request_id", requestID(r.Context()), "err", err)
		retryLater(w, "not stored; retry")
		return
	}
	slog.Info("meta hook stored", "request_id", requestID(r.Context()), "hook_id", id, "bytes", len(raw))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "EVENT_RECEIVED")
}

// metaSigned checks X-Hub-Signature-256 with MSGSVC_META_APP_SECRET, then
// with the app secrets of the Instagram accounts the payload names (an
// account connected through a Meta app of its own), and answers the
// request when none verifies it: 401, or 503 when no secret is configured
// at all (nor could the accounts' be read).
func (s *Server) metaSigned(w http.ResponseWriter, r *http.Request, raw []byte) bool {
	header := r.Header.Get("X-Hub-Signature-256")
	if s.Meta.AppSecret != "" && meta.VerifySignature(s.Meta.AppSecret, raw, header) {
		return true
	}
	if s.Meta.AppSecret != "" && !meta.SignatureShaped(header) {
		// No secret can verify it: the accounts' are not read for it.
		http.Error(w, "missing or wrong X-Hub-Signature-256", http.StatusUnauthorized)
		return false
	}
	secrets, err := s.Resolver.MetaHooks.AppSecrets(r.Context(), raw)
	if err != nil {
		slog.Warn("meta hook: accounts' app secrets not read; Meta retries it", "request_id", requestID(r.Context()), "err", err)
		retryLater(w, "not verified; retry")
		return false
	}
	for _, secret := range secrets {
		if meta.VerifySignature(secret, raw, header) {
			return true
		}
	}
	if s.Meta.AppSecret == "" && len(secrets) == 0 {
		http.Error(w, "MSGSVC_META_APP_SECRET is not configured", http.StatusServiceUnavailable)
		return false
	}
	http.Error(w, "missing or wrong X-Hub-Signature-256", http.StatusUnauthorized)
	return false
}

// retryLater answers a hook Meta should send again: 503 with Retry-After.
func retryLater(w http.ResponseWriter, text string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(unavailableRetry.Seconds())))
	http.Error(w, text, http.StatusServiceUnavailable)
}
