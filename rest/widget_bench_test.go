package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/widget"
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
	tmpl := first["conversation_id"].(string)
	dbExec(b, a, `INSERT INTO contacts SELECT (jsonb_populate_record(c, jsonb_build_object('id', 'ct_wb' || i, 'external_id', 'vis_ext_wb' || i, 'email', null, 'phone', null))).*
		FROM contacts c, generate_series(1, $2) i WHERE c.id = (SELECT contact_id FROM conversations WHERE id = $1)`, tmpl, sockets)
	dbExec(b, a, `INSERT INTO widget_visitors SELECT (jsonb_populate_record(v, jsonb_build_object('id', 'vis_wb' || i,
		'contact_id', 'ct_wb' || i, 'token_hash', encode(sha256(('vt_wb' || i)::bytea), 'hex')))).*
		FROM widget_visitors v, generate_series(1, $2) i WHERE v.contact_id = (SELECT contact_id FROM conversations WHERE id = $1)`, tmpl, sockets)
	for _, past := range []bool{true, false} {
		dbExec(b, a, `INSERT INTO conversations SELECT (jsonb_populate_record(c, jsonb_build_object(
			'id', CASE WHEN $3 THEN 'conv_wbpast' ELSE 'conv_wb' END || i, 'contact_id', 'ct_wb' || i,
			'status', CASE WHEN $3 THEN 'closed' ELSE 'open' END,
			'created_at', c.created_at - CASE WHEN $3 THEN interval '1 day' ELSE interval '0' END))).*
			FROM conversations c, generate_series(1, $2) i WHERE c.id = $1`, tmpl, sockets, past)
	}
	if got := visitor.TokenHash("vt_wb1"); got == "" {
		b.Fatal("no token hash")
	}

	type frame struct {
		at time.Time
		id string
	}
	got := make([]chan frame, sockets)
	ctx, cancel := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	b.Cleanup(func() { cancel(); readers.Wait() })
	url := "ws" + strings.TrimPrefix(a.HTTP.URL, "http") + "/widget/v1/ws?token="
	dial := make(chan int)
	var dialers sync.WaitGroup
	errs := make(chan error, sockets)
	for range 16 {
		dialers.Go(func() {
			for i := range dial {
				src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i%8))}
				client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: src}).DialContext}}
				c, _, err := websocket.Dial(ctx, url+"vt_wb"+strconv.Itoa(i+1), &websocket.DialOptions{
					HTTPClient: client, HTTPHeader: http.Header{"Origin": {mainOrigin}}})
				if err != nil {
					errs <- fmt.Errorf("socket %d: %w", i, err)
					continue
				}
				got[i] = make(chan frame, 16)
				readers.Go(func() {
					defer c.CloseNow()
					for {
						var p widget.Push
						if err := wsjson.Read(ctx, c, &p); err != nil {
							return
						}
						if p.Type == "message" {
							got[i] <- frame{time.Now(), p.Message.ID}
						}
					}
				})
			}
		})
	}
	for i := range sockets {
		dial <- i
	}
	close(dial)
	dialers.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}

	key := a.Key("live_all")
	var mu sync.Mutex
	var posts []time.Duration
	reply := func(i int) (string, time.Time, error) {
		body, _ := json.Marshal(map[string]any{"conversation_id": "conv_wb" + strconv.Itoa(i+1), "text": "reply"})
		req, _ := http.NewRequest("POST", a.HTTP.URL+"/v1/messages", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		started := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", started, err
		}
		defer res.Body.Close()
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		raw, err := io.ReadAll(res.Body)
		if err == nil && res.StatusCode == 201 {
			err = json.Unmarshal(raw, &out)
		}
		if err != nil || res.StatusCode != 201 {
			return "", started, fmt.Errorf("reply %d: %d %v %s", i, res.StatusCode, err, raw)
		}
		answered := time.Now()
		mu.Lock()
		posts = append(posts, answered.Sub(started))
		mu.Unlock()
		return out.Data.ID, answered, nil
	}
	latencies := make([]time.Duration, b.N)
	lost := 0
	var sends sync.WaitGroup
	pace := time.NewTicker(20 * time.Millisecond) // 50 replies/s
	defer pace.Stop()
	b.ResetTimer()
	for n := range b.N {
		<-pace.C
		sends.Go(func() {
			i := n * 7919 % sockets // visitors in a scattered turn
			id, answered, err := reply(i)
			if err != nil {
				mu.Lock()
				if lost++; lost == 1 {
					b.Log(err)
				}
				mu.Unlock()
				return
			}
			deadline := time.After(10 * time.Second) // then lost
			for {
				select {
				case f := <-got[i]:
					if f.id != id {
						continue
					}
					latencies[n] = f.at.Sub(answered)
					return
				case <-deadline:
					mu.Lock()
					lost++
					mu.Unlock()
					latencies[n] = 10 * time.Second
					return
				}
			}
		})
	}
	sends.Wait()
	b.StopTimer()
	pct := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(sockets), "sockets")
	b.ReportMetric(pct(latencies, 0.5), "p50-ms")
	b.ReportMetric(pct(latencies, 0.99), "p99-ms")
	b.ReportMetric(pct(posts, 0.5), "post-p50-ms")
	b.ReportMetric(float64(lost), "lost")
}
