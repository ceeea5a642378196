package rest_test

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/visitor"
)

// BenchmarkWidgetReply is an API reply reaching its visitor's WebSocket
// while MSGSVC_BENCH_WIDGET_SOCKETS (1000) visitors are connected to one
// process, each with a chat open and a closed one before it: replies go at
// 50/s to visitors in turn, each timed from the answer to its
// POST /v1/messages (the commit) to its push on the socket; post-p50-ms is
// the POST's own time. Sockets dial from 127.0.0.1-127.0.0.8 in turn, so
// ephemeral ports do not run short; each costs two open files here (both
// ends are in this process). Run it with -benchtime=Nx (N replies).
func BenchmarkWidgetReply(b *testing.B) {
	sockets := 1000
	if v := os.Getenv("MSGSVC_BENCH_WIDGET_SOCKETS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("MSGSVC_BENCH_WIDGET_SOCKETS=%q", v)
		}
		sockets = n
	}
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	b.Cleanup(func() { slog.SetDefault(logger) })

	a := widgetAPI(b, 1_000_000, 3*time.Second)
	dbExec(b, a, `UPDATE workspaces SET rate_per_second = 1000000, rate_per_minute = 100000000,
		messages_limit = 100000000 WHERE id = 'ws_main'`)
	// One visitor through the API, then its contact, visitor and chat
	// cloned `sockets` times (and a closed chat each, from before).
	token := session(a, nil)["visitor_token"].(string)
	first := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hi"}), 201, "").Data()
	cloneVisitors(b, a.Store.DB, first["conversation_id"].(string), sockets)
	if got := visitor.TokenHash("vt_wb1"); got == "" {
		b.Fatal("no token hash")
	}

	got := make([]chan socketFrame, sockets)
	for i := range got {
		got[i] = make(chan socketFrame, 16)
	}
	ctx, cancel := context.WithCancel(context.Background())
	url := "ws" + strings.TrimPrefix(a.HTTP.URL, "http") + "/widget/v1/ws?token="
	failed, hold, firstErr := holdSockets(ctx, url, 0, sockets, func(i int, f socketFrame) { got[i] <- f })
	b.Cleanup(func() { cancel(); hold() })
	if failed > 0 {
		b.Fatalf("%d sockets failed: %v", failed, firstErr)
	}

	latencies, posts, lost := replyAtFifty(b, a.HTTP.URL, a.Key("live_all"), sockets, got)
	b.ReportMetric(float64(sockets), "sockets")
	b.ReportMetric(msAt(latencies, 0.5), "p50-ms")
	b.ReportMetric(msAt(latencies, 0.99), "p99-ms")
	b.ReportMetric(msAt(posts, 0.5), "post-p50-ms")
	b.ReportMetric(float64(lost), "lost")
}
