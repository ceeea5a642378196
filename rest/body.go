package rest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// DefaultBodyTimeout is how long a request body may take to arrive after
// its headers: a 15 MB body at 2 Mbit/s.
const DefaultBodyTimeout = 60 * time.Second

// bodyDeadline sets a read deadline on the connection of every request
// that has a body, and lifts it once the body is read: a client that
// trickles a body holds its connection and memory only that long, while a
// handler that works on after reading (a provider call) is not cut, and
// requests without a body (the event stream, WebSocket upgrades) keep no
// deadline at all.
func (s *Server) bodyDeadline(next http.Handler) http.Handler {
	timeout := s.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the body has been read to its
// end, before the server goes on reading the connection for the next
// request or a client that went away.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// timedOut says a body read failed on the body deadline.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// bodyUnread is the refusal of a body that could not be read: 408
// request_timeout past the deadline, else 400 invalid_request.
func bodyUnread(err error) error {
	if timedOut(err) {
		return apierr.New(apierr.RequestTimeout, "The request body did not arrive within the body deadline.")
	}
	return apierr.New(apierr.InvalidRequest, "The request body could not be read.")
}

// errTooLarge is readBounded's refusal of a body over its limit.
var errTooLarge = errors.New("body too large")

// readBounded reads a body of at most limit bytes. A declared length over
// the limit is refused unread; an undeclared one is read in pieces, so
// refusing it costs no more than the limit, and an accepted one is
// allocated once at its size.
func readBounded(body io.Reader, declared int64, limit int) ([]byte, error) {
	if declared > int64(limit) {
		return nil, errTooLarge
	}
	if declared >= 0 {
		buf := make([]byte, declared)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	const piece = 32 << 10
	var pieces [][]byte
	total := 0
	for {
		buf := make([]byte, piece)
		n, err := io.ReadFull(body, buf)
		total += n
		if total > limit {
			return nil, errTooLarge
		}
		pieces = append(pieces, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}
