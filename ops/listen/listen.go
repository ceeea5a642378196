// Package listen is `msgsvc listen` (docs/operations.md), like `stripe
// listen`: it reads GET /v1/events/stream with a key and POSTs each event to
// a local URL, signed (Service-Signature, as webhook deliveries are) with the
// secret it is given or, by default, one derived from the key, so a receiver
// set up once keeps verifying across runs; it prints it once connected. It prints one line per
// event with its type, id and the local answer, and reconnects by itself
// with Last-Event-ID, so nothing is missed across a reconnect.
package listen

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
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/ops/sse"
	"github.com/msgsvc/msgsvc/webhooksig"
)

// Options configure a session.
type Options struct {
	API     string   // base URL of msgsvc, e.g. http://127.0.0.1:8080
	Key     string   // an API key with webhooks:manage
	Forward string   // local URL each event is POSTed to
	Events  []string // event types; empty for all
	// Secret signs the forwards; empty uses SessionSecret(Key).
	Secret string
	// Out gets the session's lines.
	Out io.Writer
	// Client makes the requests; nil uses one without timeout for the
	// stream and 10 s per forward.
	Client *http.Client
	// MinBackoff and MaxBackoff bound the wait between reconnects.
	MinBackoff, MaxBackoff time.Duration
}

// FatalError is a refusal that reconnecting cannot fix (a bad key, a
// missing scope, a bad filter).
type FatalError struct {
	Status int
	Body   string
}

func (e *FatalError) Error() string {
	return fmt.Sprintf("the API refused the stream: %d %s", e.Status, strings.TrimSpace(e.Body))
}

// SessionSecret is the secret a session with key signs with when given
// none: a whsec_ secret in the format of webhook secrets, the same on every
// run with the same key, which it does not reveal (an HMAC of it).
func SessionSecret(key string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte("msgsvc listen session secret"))
	return "whsec_" + hex.EncodeToString(mac.Sum(nil))
}

// Run forwards events until ctx ends (nil) or the API refuses for good
// (a *FatalError).
func Run(ctx context.Context, o Options) error {
	if o.Secret == "" {
		o.Secret = SessionSecret(o.Key)
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(30*time.Second, o.MinBackoff)
	}
	s := &session{Options: o}
	backoff := o.MinBackoff
	for {
		connected, err := s.stream(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var fatal *FatalError
		if errors.As(err, &fatal) {
			return err
		}
		if connected {
			backoff = o.MinBackoff
		}
		fmt.Fprintf(o.Out, "%s  stream lost (%v); reconnecting in %s\n", stamp(), err, backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(backoff*2, o.MaxBackoff)
	}
}

type session struct {
	Options
	lastID string
	ready  bool
}

// stream reads one connection until it ends; connected says it got as far
// as the stream.
func (s *session) stream(ctx context.Context) (connected bool, err error) {
	u := strings.TrimRight(s.API, "/") + "/v1/events/stream"
	if len(s.Events) > 0 {
		u += "?events=" + url.QueryEscape(strings.Join(s.Events, ","))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, &FatalError{Body: err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+s.Key)
	req.Header.Set("Accept", "text/event-stream")
	if s.lastID != "" {
		req.Header.Set("Last-Event-ID", s.lastID)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			return false, &FatalError{Status: resp.StatusCode, Body: string(body)}
		}
		return false, fmt.Errorf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	if !s.ready {
		s.ready = true
		fmt.Fprintf(s.Out, "Ready! Forwarding events to %s. Your session secret is %s (^C to quit)\n", s.Forward, s.Secret)
	} else {
		fmt.Fprintf(s.Out, "%s  reconnected\n", stamp())
	}
	r := sse.NewReader(resp.Body)
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = errors.New("the server closed the stream")
			}
			return true, err
		}
		s.forward(ctx, ev)
		s.lastID = ev.ID
	}
}

// forward POSTs one event, signed, and prints its line.
func (s *session) forward(ctx context.Context, ev sse.Event) {
	answer := s.post(ctx, ev.Data)
	fmt.Fprintf(s.Out, "%s  --> %s [%s]  <-- %s POST %s\n", stamp(), ev.Type, ev.ID, answer, s.Forward)
}

func (s *session) post(ctx context.Context, body []byte) string {
	if !json.Valid(body) {
		return "skipped (the event's data is not JSON)"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Forward, bytes.NewReader(body))
	if err != nil {
		return "error: " + err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "msgsvc-listen")
	req.Header.Set("Service-Signature", webhooksig.Header(time.Now(), body, s.Secret))
	resp, err := s.Client.Do(req)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return fmt.Sprintf("[%d]", resp.StatusCode)
}

func stamp() string { return time.Now().Format("2006-01-02 15:04:05") }
