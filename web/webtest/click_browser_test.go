package webtest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/msgsvc/msgsvc/web/webtest"
)

// clickPage has a button that jumps between places every frame for 400 ms
// after the page loads and after each click it gets (as a form moves while a
// dialog grows around it), over a wide button that takes what misses it, and
// a button under a cover. The jumping button counts its clicks in its data.
const clickPage = `<!doctype html><html lang="en"><title>click</title>
<style>#cover { position: fixed; inset: 450px 0 0 0; background: rgba(0,0,0,.3); }</style>
<main>
<button id="other" style="position: absolute; left: 0; top: 100px; width: 1000px; height: 200px" onclick="document.title = 'missed'">Other</button>
<button id="moving" style="position: absolute; left: 0; top: 150px">Moving</button>
<button id="covered" style="position: absolute; left: 0; top: 500px" onclick="document.title = 'covered clicked'">Covered</button>
<div id="cover"></div>
</main>
<script>
const m = document.getElementById("moving");
let until = 0, frame = 0;
const jump = () => {
  frame++;
  m.style.left = (frame % 5) * 150 + "px";
  if (performance.now() < until) requestAnimationFrame(jump);
};
const jumpFor = () => { until = performance.now() + 400; requestAnimationFrame(jump); };
m.addEventListener("click", () => { m.dataset.n = (+m.dataset.n || 0) + 1; jumpFor(); });
jumpFor();
</script>`

// fatalRecorder stops the goroutine at Fatalf, as testing.T does, keeping
// the message.
type fatalRecorder struct {
	testing.TB
	fatal chan string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.fatal <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestClickWaitsForTheBoxToHoldStill(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(clickPage))
	}))
	t.Cleanup(srv.Close)
	p := webtest.NewBrowser(t, srv.URL).Person()
	p.Open("/")
	for range 5 {
		p.Click("button", "Moving")
	}
	var clicks, title string
	p.Eval(`document.getElementById("moving").dataset.n || "0"`, &clicks)
	p.Eval(`document.title`, &title)
	if clicks != "5" || title != "click" {
		t.Fatalf("the jumping button got %s clicks and the page's title is %q; want 5 and \"click\" (no other button clicked)", clicks, title)
	}

	// A covered button is not clicked through its cover: the test fails,
	// saying so.
	rec := &fatalRecorder{TB: t, fatal: make(chan string, 1)}
	p.T = rec
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Click("button", "Covered")
	}()
	<-done
	p.T = t
	select {
	case msg := <-rec.fatal:
		if want := `click button "Covered": it did not hold still and show at its centre within two seconds`; msg != want {
			t.Fatalf("clicking a covered button failed with %q; want %q", msg, want)
		}
	default:
		t.Fatal("clicking a covered button passed")
	}
	p.Eval(`document.title`, &title)
	if title != "click" {
		t.Fatalf("the page's title is %q after the covered click; want \"click\"", title)
	}
}
