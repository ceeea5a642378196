package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/repo"
)

// Idempotency-Key rules (spec Limits, decisions 3).
const (
	maxIdempotencyKey = 255
	// idempotencyTTL is how long a key is remembered.
	idempotencyTTL = repo.IdempotencyTTL
	// abandonedAfter frees a key whose request never finished (its process
	// died): no request runs that long, so a retry may take the key over.
	abandonedAfter = 5 * time.Minute
)

// sendRoutes check an over-long Idempotency-Key among their own field rules,
// where decisions 3 puts it; other routes refuse it before they run.
var sendRoutes = map[string]bool{"/v1/messages": true, "/v1/whatsapp/marketing-messages": true}

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
// runs, so a duplicate on any API process sees it and answers 409 while the
// first runs, 422 if its body differs, or the stored first answer once it
// is final. A 5xx or 429 is not final: the key is released for a retry.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, a *auth.Actor, key string, h endpoint) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if len(key) > maxIdempotencyKey {
		if sendRoutes[r.URL.Path] {
			serve(w, r.WithContext(send.WithLongIdempotencyKey(r.Context(), len(key))), h)
			return
		}
		writeError(w, r, keyTooLong(r, body))
		return
	}
	sum := sha256.Sum256(append([]byte(r.Method+" "+r.URL.Path+"\n"), body...))
	rec := &repo.IdempotencyRecord{APIKeyID: a.KeyID, Key: key, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		RequestHash: hex.EncodeToString(sum[:]), RequestID: requestID(r.Context()), CreatedAt: s.now()}
	prior, err := s.claim(r.Context(), rec)
	switch {
	case err != nil:
		writeError(w, r, err)
	case prior != nil && prior.RequestHash != rec.RequestHash:
		writeError(w, r, apierr.New(apierr.IdempotencyKeyReused, "Idempotency-Key %q was used with a different request; use a new key.", key))
	case prior != nil && prior.ResponseStatus == nil:
		writeError(w, r, apierr.New(apierr.IdempotencyInProgress, "A request with Idempotency-Key %q is still running; retry shortly.", key))
	case prior != nil:
		// The first answer, as it was sent, request id included.
		w.Header().Set("X-Request-Id", prior.RequestID)
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(*prior.ResponseStatus)
		if _, err := w.Write(prior.ResponseBody); err != nil {
			slog.Debug("write response; the client went away", "err", err)
		}
	default:
		s.runClaimed(w, r, rec, h)
	}
}

// runClaimed runs the request that owns a key and stores its final answer.
func (s *Server) runClaimed(w http.ResponseWriter, r *http.Request, rec *repo.IdempotencyRecord, h endpoint) {
	// A client hanging up must not leave the key in progress.
	ctx := context.WithoutCancel(r.Context())
	store := s.Resolver.Store
	finished := false
	defer func() {
		if !finished {
			if err := store.ReleaseIdempotencyKey(ctx, rec.APIKeyID, rec.Key, rec.RequestID); err != nil {
				slog.Error("release idempotency key; it stays in progress until abandoned", "request_id", requestID(r.Context()), "err", err)
			}
		}
	}()
	rw := &recorder{ResponseWriter: w}
	serve(rw, r, h)
	if rw.status >= 500 || rw.status == http.StatusTooManyRequests {
		return
	}
	finished = s.finish(ctx, r, rec, rw)
}

// finishAttempts is how often storing a final answer is tried before the key
// is given up (released, so a retry runs the request again).
const finishAttempts = 3

// finish stores the final answer of a request under its key, retrying a
// failed write; every failure is logged with the request id.
func (s *Server) finish(ctx context.Context, r *http.Request, rec *repo.IdempotencyRecord, rw *recorder) bool {
	for attempt := 1; attempt <= finishAttempts; attempt++ {
		err := s.Resolver.Store.FinishIdempotencyKey(ctx, rec.APIKeyID, rec.Key, rec.RequestID, rw.status, rw.body.Bytes())
		if err == nil {
			return true
		}
		slog.Error("store idempotent answer", "request_id", requestID(r.Context()), "attempt", attempt, "err", err)
		if attempt < finishAttempts {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
	}
	slog.Error("idempotent answer not stored; releasing the key", "request_id", requestID(r.Context()))
	return false
}

// claim takes the key for this request (nil) or returns the record that
// holds it. An expired or abandoned record is taken over.
func (s *Server) claim(ctx context.Context, rec *repo.IdempotencyRecord) (*repo.IdempotencyRecord, error) {
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
		expired := !rec.CreatedAt.Before(prior.CreatedAt.Add(idempotencyTTL)) ||
			(prior.ResponseStatus == nil && !rec.CreatedAt.Before(prior.CreatedAt.Add(abandonedAfter)))
		if !expired {
			return prior, nil
		}
		if ok, err = store.RetakeIdempotencyKey(ctx, rec, prior.RequestID); err != nil || ok {
			return nil, err
		}
	}
	return nil, apierr.New(apierr.IdempotencyInProgress, "A request with Idempotency-Key %q is still running; retry shortly.", rec.Key)
}

// keyTooLong answers an over-long key, unless the body is not even a JSON
// object: the body's shape is checked before field rules (decisions 3).
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
