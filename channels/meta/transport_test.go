package meta_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// TestClientReusesConnectionsUnderConcurrency: a client built without an
// HTTP client of its own keeps its connections to a host for the next
// calls, as many as were in flight (http.DefaultTransport kept 2, so 14 of
// a second round of 16 opened new connections).
func TestClientReusesConnectionsUnderConcurrency(t *testing.T) {
	const inFlight = 16
	var opened atomic.Int32
	arrived := make(chan struct{}, inFlight)
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		// GET /{phone-number-id} answers the node's fields:
		// https://developers.facebook.com/docs/graph-api/reference/whatsapp-business-phone-number/
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"106540352242922","display_phone_number":"+1 555-010-0000"}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := meta.Config{GraphURL: srv.URL, Timeout: 10 * time.Second}.Graph()
	round := func() {
		var wg sync.WaitGroup
		errs := make(chan error, inFlight)
		for range inFlight {
			wg.Go(func() {
				var out struct {
					ID string `json:"id"`
				}
				if err := c.GetJSON(t.Context(), "TOKEN", nil, &out, "106540352242922"); err != nil || out.ID != "106540352242922" {
					errs <- err
				}
			})
		}
		for range inFlight { // all in flight at once, each on a connection
			<-arrived
		}
		release <- struct{}{}
		for range inFlight - 1 {
			release <- struct{}{}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("call: %v", err)
		}
	}
	round()
	round()
	if n := opened.Load(); n != inFlight {
		t.Errorf("%d connections opened for two rounds of %d calls, want %d (the second round reuses the first's)", n, inFlight, inFlight)
	}
}
