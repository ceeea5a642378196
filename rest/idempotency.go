package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Idempotency-Key rules (docs/api.md, Idempotency).
const (
	maxIdempotencyKey = 255
	// idempotencyTTL is how long a key is remembered.
	idempotencyTTL = repo.IdempotencyTTL
	// abandonedAfter frees a key whose request never finished (its process
	// died): no request runs that long, so a retry may take the key over.
	abandonedAfter = 5 * time.Minute
	// abandonedSendAfter frees the key of a send that died before its
	// reserve bound the key to a message: a send reaches its reserve within
	// a few seconds, and one that is only slow loses the key at its reserve
	// (send.KeyBinding) instead of sending twice.
	abandonedSendAfter = 30 * time.Second
	// inProgressRetry is the Retry-After of a 409 idempotency_in_progress.
	inProgressRetry = time.Second
)

// sendRoutes check an over-long Idempotency-Key among their own field rules,
// in the order of a send's checks (docs/api.md, Sending); other routes
// refuse it before they run.
var sendRoutes = map[string]bool{"/v1/messages": true, "/v1/whatsapp/marketing-messages": true}

// keyedEndpoint is an endpoint given the Idempotency-Key it runs under: a
// send binds it to its message, or answers a key that is too long among
// its own field rules.
type keyedEndpoint func(r *http.Request, key sendKey) (int, any, error)

// sendKey is a send's Idempotency-Key as rest read it: claimed (binding),
// too long (long, its length), or neither.
type sendKey struct {
	binding *send.KeyBinding
	long    int
}

func (h keyedEndpoint) with(key sendKey) endpoint {
	return func(r *http.Request) (int, any, error) { return h(r, key) }
}

// serve runs an endpoint and writes its answer.
func serve(w http.ResponseWriter, r *http.Request, h endpoint) {
	status, payload, err := call(r, h)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, status, dataBody{payload})
}

// idempotent runs a POST under its Idempotency-Key. Postgres decides: the
// key row is claimed with INSERT … ON CONFLICT DO NOTHING before the request
// runs, so a duplicate on any API process sees it and answers 422 if its
// body differs, the stored first answer once it is final, the current state
// of the message a send bound the key to (201, or 202 while sending), or
// 409 while the first runs and has bound nothing. A 5xx or 429 of a request
// that bound nothing is not final: the key is released for a retry. Once a
// send bound the key, every answer is final (docs/api.md, Delivery
// guarantees).
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, a *auth.Actor, key string, h keyedEndpoint) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if len(key) > maxIdempotencyKey {
		if sendRoutes[r.URL.Path] {
			serve(w, r, h.with(sendKey{long: len(key)}))
			return
		}
		writeError(w, r, keyTooLong(r, body))
		return
	}
	sum := sha256.Sum256(append([]byte(r.Method+" "+r.URL.Path+"\n"), body...))
	rec := &repo.IdempotencyRecord{APIKeyID: a.KeyID, Key: key, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		RequestHash: hex.EncodeToString(sum[:]), RequestID: requestID(r.Context()), CreatedAt: s.now()}
	prior, err := s.claim(r.Context(), rec, sendRoutes[r.URL.Path])
	switch {
	case err != nil:
		writeError(w, r, err)
	case prior != nil && prior.RequestHash != rec.RequestHash:
		writeError(w, r, apierr.New(apierr.IdempotencyKeyReused, "Idempotency-Key %q was used with a different request; use a new key.", key))
	case prior != nil && prior.ResponseStatus == nil && prior.MessageID != nil:
		s.answerFromMessage(w, r, a, rec, prior, h)
	case prior != nil && prior.ResponseStatus == nil:
		writeError(w, r, inProgress(key))
	case prior != nil:
		// The first answer, as it was sent, request id included.
		body, err := s.openAnswer(prior)
		if err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("X-Request-Id", prior.RequestID)
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(*prior.ResponseStatus)
		if _, err := w.Write(body); err != nil {
			slog.Debug("write response; the client went away", "err", err)
		}
	default:
		s.runClaimed(w, r, rec, h)
	}
}

func inProgress(key string) error {
	e := apierr.New(apierr.IdempotencyInProgress, "A request with Idempotency-Key %q is still running; retry shortly.", key)
	e.RetryAfter = inProgressRetry
	return e
}

// answerFromMessage answers a retry of a send whose key is bound to a
// message and has no final answer stored (the first request is still
// calling the provider, died, or could not store its answer): the
// message's current state, 202 while it is sending and 201 once settled,
// and never a second provider call. A bound message that no longer exists
// was refused (a refusal removes it) without its answer stored: nothing
// reached the customer, so the request runs again.
func (s *Server) answerFromMessage(w http.ResponseWriter, r *http.Request, a *auth.Actor, rec *repo.IdempotencyRecord, prior *repo.IdempotencyRecord, h keyedEndpoint) {
	msg, err := s.Resolver.Query().Message(r.Context(), *prior.MessageID)
	if e, ok := apierr.As(err); ok && e.Code == apierr.MessageNotFound {
		ok, err := s.Resolver.Store.RetakeIdempotencyKey(r.Context(), rec, prior.RequestID, true)
		switch {
		case err != nil:
			writeError(w, r, err)
		case !ok:
			writeError(w, r, inProgress(rec.Key))
		default:
			s.runClaimed(w, r, rec, h)
		}
		return
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	writeJSON(w, sentStatus(msg), dataBody{msg})
}

// runClaimed runs the request that owns a key and stores its final answer.
func (s *Server) runClaimed(w http.ResponseWriter, r *http.Request, rec *repo.IdempotencyRecord, h keyedEndpoint) {
	// A client hanging up must not leave the key in progress.
	ctx := context.WithoutCancel(r.Context())
	var binding *send.KeyBinding
	if sendRoutes[r.URL.Path] {
		binding = &send.KeyBinding{APIKeyID: rec.APIKeyID, Key: rec.Key, RequestID: rec.RequestID}
	}
	rw := &recorder{ResponseWriter: w}
	serve(rw, r, h.with(sendKey{binding: binding}))
	switch bound := binding != nil && binding.MessageID != ""; {
	case bound && rw.status == http.StatusAccepted:
		// Sending: the key answers from the message until it settles.
	case bound:
		// The message exists, or existed and was refused: the answer is
		// final. Unstored, the key still answers from the message.
		s.finish(ctx, r, rec, rw)
	case rw.status >= 500 || rw.status == http.StatusTooManyRequests || !s.finish(ctx, r, rec, rw):
		s.release(ctx, r, rec)
	}
}

// release forgets a key whose request bound nothing and reached no final
// answer; a key it cannot release is abandoned after abandonedSendAfter (a
// send) or abandonedAfter.
func (s *Server) release(ctx context.Context, r *http.Request, rec *repo.IdempotencyRecord) {
	if !keyWrite(r, "release idempotency key", func() error {
		return s.Resolver.Store.ReleaseIdempotencyKey(ctx, rec.APIKeyID, rec.Key, rec.RequestID)
	}) {
		slog.Error("idempotency key not released; a retry takes it over once abandoned", "request_id", requestID(r.Context()))
	}
}

// finishAttempts is how often a key's write (its final answer, its
// release) is tried before it is given up.
const finishAttempts = 3

// finish stores the final answer of a request under its key, sealed.
func (s *Server) finish(ctx context.Context, r *http.Request, rec *repo.IdempotencyRecord, rw *recorder) bool {
	sealed, err := s.sealAnswer(rec, rw.body.Bytes())
	if err != nil {
		slog.Error("seal idempotent answer; not stored", "request_id", requestID(r.Context()), "err", err)
		return false
	}
	if keyWrite(r, "store idempotent answer", func() error {
		return s.Resolver.Store.FinishIdempotencyKey(ctx, rec.APIKeyID, rec.Key, rec.RequestID, rw.status, sealed)
	}) {
		return true
	}
	slog.Error("idempotent answer not stored", "request_id", requestID(r.Context()))
	return false
}

// A stored answer can carry a secret (a new endpoint's or a rolled
// signing secret), so every answer is stored sealed with the key of
// credentials at rest (graph/seal), bound to its API key and
// Idempotency-Key: a copy moved to another row does not open. A replay
// opens it and answers it as it was first sent, secret included: the
// caller holds the same API key and key, and a caller that lost the first
// answer needs the secret it carried.
func answerAAD(apiKeyID, key string) string { return "idempotency_keys:" + apiKeyID + ":" + key }

func (s *Server) sealAnswer(rec *repo.IdempotencyRecord, body []byte) ([]byte, error) {
	sealed, err := s.Resolver.Seal.Seal(body, answerAAD(rec.APIKeyID, rec.Key))
	return []byte(sealed), err
}

// openAnswer returns a stored answer as it was sent; one stored before
// answers were sealed is plain.
func (s *Server) openAnswer(rec *repo.IdempotencyRecord) ([]byte, error) {
	if !rec.ResponseSealed {
		return rec.ResponseBody, nil
	}
	body, err := s.Resolver.Seal.Open(string(rec.ResponseBody), answerAAD(rec.APIKeyID, rec.Key))
	if err != nil {
		return nil, fmt.Errorf("the answer stored under this Idempotency-Key does not open (was MSGSVC_ENCRYPTION_KEY changed within 24 hours?): %w", err)
	}
	return body, nil
}

// keyWrite runs a write of a key up to finishAttempts times, logging every
// failure with the request id; it reports whether one went through.
func keyWrite(r *http.Request, what string, write func() error) bool {
	for attempt := 1; attempt <= finishAttempts; attempt++ {
		err := write()
		if err == nil {
			return true
		}
		slog.Error(what, "request_id", requestID(r.Context()), "attempt", attempt, "err", err)
		if attempt < finishAttempts {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
	}
	return false
}

// claim takes the key for this request (nil) or returns the record that
// holds it. An expired record is taken over, and so is an abandoned one
// that bound no message and has no answer.
func (s *Server) claim(ctx context.Context, rec *repo.IdempotencyRecord, isSend bool) (*repo.IdempotencyRecord, error) {
	store := s.Resolver.Store
	for range 3 {
		ok, err := store.ClaimIdempotencyKey(ctx, rec)
		if err != nil || ok {
			return nil, err
		}
		prior, err := store.IdempotencyKey(ctx, rec.APIKeyID, rec.Key)
		if errors.Is(err, repo.ErrNotFound) {
			continue // released in between: claim again
		}
		if err != nil {
			return nil, err
		}
		abandon := abandonedAfter
		if isSend {
			abandon = abandonedSendAfter
		}
		expired := !rec.CreatedAt.Before(prior.CreatedAt.Add(idempotencyTTL))
		abandoned := prior.ResponseStatus == nil && prior.MessageID == nil && !rec.CreatedAt.Before(prior.CreatedAt.Add(abandon))
		if !expired && !abandoned {
			return prior, nil
		}
		if ok, err = store.RetakeIdempotencyKey(ctx, rec, prior.RequestID, expired); err != nil || ok {
			return nil, err
		}
	}
	return nil, inProgress(rec.Key)
}

// keyTooLong answers an over-long key, unless the body is not even a JSON
// object: the body's shape is checked before field rules.
func keyTooLong(r *http.Request, body []byte) error {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 && mediaType != "multipart/form-data" && (json.Unmarshal(body, &obj) != nil || obj == nil) {
		return apierr.New(apierr.InvalidRequest, "The request body must be a JSON object.")
	}
	return apierr.New(apierr.InvalidIdempotencyKey, "Idempotency-Key is %d characters; at most %d are allowed.", len(r.Header.Get("Idempotency-Key")), maxIdempotencyKey)
}

// now is the resolvers' clock, so tests move the 24 hours on.
func (s *Server) now() time.Time {
	if s.Resolver.Clock != nil {
		return s.Resolver.Clock().UTC()
	}
	return time.Now().UTC()
}

// recorder passes a response through and keeps a copy to store.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

// WriteHeader passes the status on and remembers it.
func (w *recorder) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Write passes the bytes on and keeps a copy.
func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}
