package widget

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/repo"
)

// readCounter counts the read receipts that reach the store.
type readCounter struct {
	*fakeVisitors
	mu    sync.Mutex
	reads []string
}

func (r *readCounter) Read(_ context.Context, _ *repo.Visitor, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = append(r.reads, id)
	return nil
}

func (r *readCounter) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reads)
}

// socket serves one widget connection of a hub whose clock stands still,
// and returns the widget's side and a channel closed once the service's
// side is over.
func socket(t *testing.T, visitors Visitors) (*websocket.Conn, chan struct{}) {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &Hub{Visitors: visitors, Clock: func() time.Time { return at }}
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer close(done)
		h.Serve(context.WithoutCancel(r.Context()), c, &repo.Visitor{ID: "vis_a", ContactID: "ct_a", WebsiteID: "web_a"}, Publish{})
	}))
	t.Cleanup(srv.Close)
	c, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c, done
}

// closedWith sends frames until the service closes the socket, and
// returns the close status and reason.
func closedWith(t *testing.T, c *websocket.Conn, frames int, frame func(i int) Frame) (websocket.StatusCode, string) {
	t.Helper()
	go func() {
		for i := range frames {
			if wsjson.Write(context.Background(), c, frame(i)) != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			return -1, err.Error()
		}
	}
}

// A socket flooding read receipts is closed once past its budget of
// frames, having cost at most that many store calls.
func TestWidgetSocketFrameBudget(t *testing.T) {
	f := &readCounter{fakeVisitors: &fakeVisitors{}}
	c, _ := socket(t, f)
	code, reason := closedWith(t, c, 10000, func(i int) Frame {
		return Frame{Type: "read", MessageID: fmt.Sprintf("msg_%06d", i)}
	})
	if code != websocket.StatusPolicyViolation || reason != "too many frames" {
		t.Errorf("closed with %v %q, want 1008 \"too many frames\"", code, reason)
	}
	if n := f.count(); n > frameBurst {
		t.Errorf("10000 read frames cost %d store calls; the budget is %d frames", n, frameBurst)
	}
}

// A receipt repeated, or for a message older than one already reported,
// costs no store call: the read mark only moves forward.
func TestWidgetReadReceiptsCoalesce(t *testing.T) {
	f := &readCounter{fakeVisitors: &fakeVisitors{}}
	c, done := socket(t, f)
	ids := []string{"msg_02", "msg_02", "msg_01", "msg_02", "", "msg_03", "msg_01", "msg_03"}
	for _, id := range ids {
		if err := wsjson.Write(t.Context(), c, Frame{Type: "read", MessageID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// Every receipt sent before the close is handled once the service's
	// side is over.
	c.Close(websocket.StatusNormalClosure, "")
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Join(f.reads, ",") != "msg_02,msg_03" {
		t.Errorf("receipts %q reached the store as %q", ids, f.reads)
	}
}

// The budget is a burst, then frameRate frames a second of the hub's clock.
func TestFrameBudgetRefills(t *testing.T) {
	var b budget
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range frameBurst {
		if !b.spend(at) {
			t.Fatalf("frame %d of the burst refused", i+1)
		}
	}
	if b.spend(at) {
		t.Fatal("a frame past the burst is taken")
	}
	at = at.Add(time.Second)
	for i := range frameRate {
		if !b.spend(at) {
			t.Fatalf("frame %d of the next second refused", i+1)
		}
	}
	if b.spend(at) {
		t.Fatal("more than frameRate frames a second are taken")
	}
	if !b.spend(at.Add(time.Hour)) || b.tokens != frameBurst-1 {
		t.Errorf("after an hour the budget holds %v, want the burst less one", b.tokens)
	}
}
