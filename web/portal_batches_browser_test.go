package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/rest/resttest"
	"github.com/msgsvc/msgsvc/web/webtest"
)

// runPacer runs a worker's pacer of queued messages over the app (as
// jobs.RunCampaigns does) until the test ends; its pair window is short, so
// a few sends to one customer go out within a second or two.
func runPacer(t *testing.T, app *webtest.App) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &send.Campaign{Sends: app.Resolver.Sends, Store: app.Store, Owner: "browser-test-pacer", PairWindow: 300 * time.Millisecond}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := c.Pass(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("pacer: %v", err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		c.Wait()
	})
}

// doneRow is a done batch's row of 4 sends, 1 refused: its sent and
// delivered counts.
var doneRow = regexp.MustCompile(`\|4\|1\|0\|0\|(\d)\|(\d)\|0\|0\|Done$`)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// rowOf is the texts of the cells of a batch's row in the table Batches,
// joined by "|".
func rowOf(p *webtest.Person, id string) string {
	var row string
	p.Eval(fmt.Sprintf(`(() => { const r = [...document.querySelectorAll('table[aria-label="Batches"] tbody tr')]
		.find((r) => r.textContent.includes(%q));
		return r ? [...r.cells].map((c) => c.textContent.trim()).join("|") : ""; })()`, id), &row)
	return row
}

// TestPortalBatchesInChromium is issue 40's "done when" for the portal:
// a batch sent over /v1 with a test key is listed on the developer's page
// Batches with its counts while its messages wait, its progress follows
// on its own (the page asks again while a batch shown is unfinished) until
// it is done, and then the page stops asking. axe is clean on the page in
// both states.
func TestPortalBatchesInChromium(t *testing.T) {
	app := webtest.New(t)
	dev := app.Browser(t).Person()
	openPortal(t, app, dev, developerEmail)

	// A customer writes (her 24-hour window opens); three replies go to
	// her in one batch, and a fourth to a customer whose window closed.
	conv := app.Inbound("whatsapp", "+15550109001", "Where is my order?")["conversation"].(map[string]any)["id"].(string)
	sends := []any{
		map[string]any{"conversation_id": conv, "text": "one"},
		map[string]any{"conversation_id": conv, "text": "two"},
		map[string]any{"conversation_id": conv, "text": "three"},
		map[string]any{"conversation_id": "conv_wa_25h", "text": "outside the window"},
	}
	batch := app.Want(app.Do("POST", "/v1/messages/batch", "test_all", map[string]any{"messages": sends}), 202, "").Data()
	id, _ := batch["id"].(string)
	if id == "" || batch["refused"] != 1.0 {
		t.Fatalf("the batch answered %v, want an id and 1 refused", batch)
	}

	// Queued: nothing sends them yet.
	dev.Click("link", "Batches")
	dev.WaitFor("heading", "Batches")
	dev.WaitText("table", "Batches", id)
	// Batch, Created, Sends, Refused, then queued, sending, sent,
	// delivered, read, failed, and the progress.
	if row := rowOf(dev, id); !strings.HasSuffix(row, "|4|1|3|0|0|0|0|0|In progress") {
		t.Errorf("the queued batch's row is %q; want 4 sends, 1 refused, 3 queued, in progress", row)
	}
	dev.WaitFor("progressbar", "Progress of "+id)
	waitPageText(t, dev, "1 in progress; updating every 3 seconds.")
	dev.Axe("Batches, a batch in progress")

	// The pacer sends them; the page follows without a reload.
	dev.Eval(`(() => { window.__batchQueries = 0; const f = window.fetch;
		window.fetch = (url, init) => { if (String(init && init.body).includes("messageBatches")) window.__batchQueries++; return f(url, init); };
		return true; })()`, nil)
	runPacer(t, app)
	dev.WaitNoText("table", "Batches", "In progress")
	// Sandbox sends are sent, then delivered two seconds later.
	if m := doneRow.FindStringSubmatch(rowOf(dev, id)); m == nil || atoi(m[1])+atoi(m[2]) != 3 {
		t.Errorf("the sent batch's row is %q; want 4 sends, 1 refused, none queued or sending, 3 sent or delivered, done", rowOf(dev, id))
	}
	waitPageText(t, dev, "Every batch shown is done.")
	var polled int
	dev.Eval(`window.__batchQueries`, &polled)
	if polled < 1 {
		t.Errorf("the page showed the batch done after %d requests for batches; want it to have asked again", polled)
	}
	// Done: no more asking (the page asked every 3 s while unfinished).
	time.Sleep(4 * time.Second)
	var after int
	dev.Eval(`window.__batchQueries`, &after)
	if after != polled {
		t.Errorf("the page asked for batches %d more times after every batch shown was done", after-polled)
	}
	dev.Axe("Batches, every batch done")

	// Keyboard: Refresh is reached and used with the keyboard.
	dev.Focus("button", "Refresh")
	dev.Press("\r")
	resttest.Eventually(t, "Refresh to ask for batches again", func() bool {
		var n int
		dev.Eval(`window.__batchQueries`, &n)
		return n == after+1
	})
	dev.WaitText("table", "Batches", id)
	dev.Screenshot("portal-batches")
}
