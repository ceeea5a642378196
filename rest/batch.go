package rest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Asynchronous and batch sends (docs/api.md): Prefer: respond-async on
// POST /v1/messages queues the message and answers 202 with it queued;
// POST /v1/messages/batch queues up to send.MaxBatch sends, each under its
// own idempotency_key, and answers each with its message or its error, in
// order.

// preferAsync says whether a request asks for an asynchronous answer
// (RFC 7240: Prefer: respond-async, among other preferences).
func preferAsync(r *http.Request) bool {
	for _, v := range r.Header.Values("Prefer") {
		for _, p := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(p, ";")
			if strings.EqualFold(strings.TrimSpace(name), "respond-async") {
				return true
			}
		}
	}
	return false
}

// asyncApplied answers Preference-Applied: respond-async with every 202 of
// a request that preferred it (the message queued, or still sending on a
// replay).
func asyncApplied(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if preferAsync(r) {
			w = &preferenceWriter{ResponseWriter: w}
		}
		next.ServeHTTP(w, r)
	})
}

type preferenceWriter struct{ http.ResponseWriter }

func (w *preferenceWriter) WriteHeader(status int) {
	if status == http.StatusAccepted {
		w.Header().Set("Preference-Applied", "respond-async")
	}
	w.ResponseWriter.WriteHeader(status)
}

// batchRequest is the body of POST /v1/messages/batch.
type batchRequest struct {
	Messages []json.RawMessage `json:"messages"`
}

// batchResult is one item's answer: the status it would have had alone,
// and its message or its error.
type batchResult struct {
	Status   int            `json:"status"`
	Message  *model.Message `json:"message,omitempty"`
	Error    *errorObject   `json:"error,omitempty"`
	Replayed bool           `json:"idempotent_replayed,omitempty"`
}

// batchAnswer is the batch with its items' answers.
type batchAnswer struct {
	*model.MessageBatch
	Results []batchResult `json:"results"`
}

// batchWorkers is how many items of a batch are reserved at once.
const batchWorkers = 4

func (s *Server) sendBatch(r *http.Request) (int, any, error) {
	var in batchRequest
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if len(in.Messages) == 0 || len(in.Messages) > send.MaxBatch {
		return 0, nil, apierr.New(apierr.InvalidRequest, "messages must hold 1 to %d sends; got %d.", send.MaxBatch, len(in.Messages))
	}
	// The client hanging up does not stop a batch half way.
	r = r.WithContext(context.WithoutCancel(r.Context()))
	a, err := auth.From(r.Context())
	if err != nil {
		return 0, nil, err
	}
	id, err := s.Resolver.Sends.NewBatch(r.Context(), len(in.Messages))
	if err != nil {
		return 0, nil, err
	}
	results := make([]batchResult, len(in.Messages))
	next := make(chan int)
	var wg sync.WaitGroup
	for range batchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = s.batchItem(r, a, id, i, in.Messages[i])
			}
		}()
	}
	for i := range in.Messages {
		next <- i
	}
	close(next)
	wg.Wait()
	refused := 0
	for _, res := range results {
		if res.Error != nil {
			refused++
		}
	}
	if err := s.Resolver.Sends.CloseBatch(r.Context(), id, refused); err != nil {
		return 0, nil, err
	}
	b, err := s.Resolver.Sends.MessageBatch(r.Context(), id)
	return http.StatusAccepted, batchAnswer{MessageBatch: b, Results: results}, err
}

func (s *Server) getBatch(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().MessageBatch(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

// batchItem runs one item: its fields read, its idempotency_key claimed as
// a send's Idempotency-Key is (bound to its message, answered from it on a
// retry), then queued.
func (s *Server) batchItem(r *http.Request, a *auth.Actor, batchID string, i int, raw json.RawMessage) batchResult {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return itemError(r, apierr.New(apierr.InvalidRequest, "messages[%d] must be a JSON object.", i))
	}
	key := ""
	if k, ok := fields["idempotency_key"]; ok {
		if err := json.Unmarshal(k, &key); err != nil {
			return itemError(r, apierr.New(apierr.InvalidRequest, "messages[%d].idempotency_key must be a string.", i))
		}
		delete(fields, "idempotency_key")
	}
	body, err := json.Marshal(fields) // sorted keys: the same item hashes the same
	if err != nil {
		return itemError(r, err)
	}
	var input model.SendMessageInput
	if _, err := decodeBytes(body, &input); err != nil {
		return itemError(r, err)
	}
	if key == "" {
		return s.queueItem(r, batchID, input, nil)
	}
	if len(key) > maxIdempotencyKey {
		return itemError(r, apierr.New(apierr.InvalidIdempotencyKey, "idempotency_key is %d characters; the limit is %d.", len(key), maxIdempotencyKey))
	}
	sum := sha256.Sum256(append([]byte("POST /v1/messages/batch item\n"), body...))
	rec := &repo.IdempotencyRecord{APIKeyID: a.KeyID, Key: key, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		RequestHash: hex.EncodeToString(sum[:]), RequestID: requestID(r.Context()) + "." + strconv.Itoa(i), CreatedAt: s.now()}
	prior, err := s.claim(r.Context(), rec, true)
	switch {
	case err != nil:
		return itemError(r, err)
	case prior != nil && prior.RequestHash != rec.RequestHash:
		return itemError(r, apierr.New(apierr.IdempotencyKeyReused, "idempotency_key %q was used with a different send; use a new key.", key))
	case prior != nil && prior.ResponseStatus == nil && prior.MessageID != nil:
		msg, err := s.Resolver.Query().Message(r.Context(), *prior.MessageID)
		if err != nil {
			return itemError(r, err)
		}
		return batchResult{Status: sentStatus(msg), Message: msg, Replayed: true}
	case prior != nil && prior.ResponseStatus == nil:
		return itemError(r, inProgress(key))
	case prior != nil:
		var res batchResult
		stored, err := s.openAnswer(prior)
		if err == nil {
			err = json.Unmarshal(stored, &res)
		}
		if err != nil {
			return itemError(r, err)
		}
		res.Replayed = true
		return res
	}
	binding := &send.KeyBinding{APIKeyID: rec.APIKeyID, Key: rec.Key, RequestID: rec.RequestID}
	res := s.queueItem(r, batchID, input, binding)
	switch {
	case binding.MessageID != "":
		// Bound: the key answers from the message from now on.
	case res.Status >= 500 || res.Status == http.StatusTooManyRequests:
		s.release(r.Context(), r, rec)
	default:
		stored, err := json.Marshal(res)
		if err == nil {
			err = s.finishItem(r.Context(), rec, res.Status, stored)
		}
		if err != nil {
			s.release(r.Context(), r, rec)
		}
	}
	return res
}

// queueItem queues one item's message.
func (s *Server) queueItem(r *http.Request, batchID string, input model.SendMessageInput, binding *send.KeyBinding) batchResult {
	msg, err := s.Resolver.Sends.Send(r.Context(), send.Request{Input: input, Binding: binding, Async: true, BatchID: batchID})
	if err != nil {
		return itemError(r, err)
	}
	return batchResult{Status: sentStatus(msg), Message: msg}
}

// finishItem stores an item's final answer under its key, sealed.
func (s *Server) finishItem(ctx context.Context, rec *repo.IdempotencyRecord, status int, body []byte) error {
	sealed, err := s.sealAnswer(rec, body)
	if err != nil {
		return err
	}
	return s.Resolver.Store.FinishIdempotencyKey(ctx, rec.APIKeyID, rec.Key, rec.RequestID, status, sealed)
}

// itemError is an error as writeError would answer it alone: its status
// and error object. Unlike writeError it notes nothing for the request
// log (the items run at once; the log records the batch's own answer), and
// the items' request is never cancelled (the batch runs on when its client
// hangs up), so answerFor always has an answer.
func itemError(r *http.Request, err error) batchResult {
	a, _ := answerFor(r, err)
	return batchResult{Status: a.status, Error: &a.body}
}
