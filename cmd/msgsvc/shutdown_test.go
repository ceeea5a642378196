package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"
)

// loadSend is one POST /v1/messages of the load and what came of it.
type loadSend struct {
	key, text string
	code      int
	id        string
	err       error
}

// TestSIGTERMMidLoadLosesNothing runs `serve` and `worker` as separate
// processes under a load of sandbox sends (each with its Idempotency-Key),
// with a verified webhook endpoint, and sends both SIGTERM mid-load. Both
// exit 0 within their bounds; no request is cut off (a client sees an
// answer or a refused connection, never a reset); every send answered 2xx is
// stored; once the processes are back, each refused send, retried with its
// key, is stored exactly once; every message reaches delivered, and every
// event of the conversation reaches the receiver.
func TestSIGTERMMidLoadLosesNothing(t *testing.T) {
	in := newInstallation(t, nil)
	serve := in.serve("serve")
	worker := in.start("worker")
	testKey := fixtureKey(t, "key_test_all")
	secret := newWebhookSecret(2)
	rc := newReceiver(t, secret)
	in.must(201, "POST", "/v1/webhook-endpoints", testKey, map[string]any{
		"url": rc.URL, "events": []string{"*"}, "testEvents": true, "secret": secret})
	conv := in.inbound(testKey, "+15550004321", "start of the load")

	post := func(key, text string) loadSend {
		code, out, err := in.call("POST", "/v1/messages", testKey, map[string]any{"conversation_id": conv, "text": text},
			"Idempotency-Key", key)
		s := loadSend{key: key, text: text, code: code, err: err}
		if data, _ := out["data"].(map[string]any); data != nil {
			s.id, _ = data["id"].(string)
		}
		return s
	}
	var mu sync.Mutex
	var sends []loadSend
	var answered atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("sigterm-%d-%d", g, i)
				s := post(key, "load message "+key)
				mu.Lock()
				sends = append(sends, s)
				mu.Unlock()
				if s.code/100 == 2 {
					answered.Add(1)
				}
				if s.err != nil {
					time.Sleep(20 * time.Millisecond) // nothing listens: do not spin
				}
			}
		})
	}
	eventually(t, 30*time.Second, "sends under way", func() (bool, string) {
		return answered.Load() >= 20, fmt.Sprint(answered.Load(), " answered")
	})
	serve.terminate(t)
	worker.terminate(t)
	// serve's bound for in-flight requests is 10 s, the worker's for
	// running tasks asynq's 8 s.
	if code := serve.wait(t, 20*time.Second); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	if code := worker.wait(t, 20*time.Second); code != 0 {
		t.Errorf("worker exited %d", code)
	}
	time.Sleep(200 * time.Millisecond) // let the load see the refused connections
	close(stop)
	wg.Wait()

	var stored, refused []loadSend
	for _, s := range sends {
		switch {
		case s.code/100 == 2 && s.id != "":
			stored = append(stored, s)
		case s.err != nil && errors.Is(s.err, syscall.ECONNREFUSED):
			refused = append(refused, s)
		default:
			t.Errorf("send %s: %d %v: neither answered nor refused", s.key, s.code, s.err)
		}
	}
	if len(refused) == 0 {
		t.Fatalf("the load never met the stopped server (%d sends)", len(sends))
	}
	var ids []string
	for _, s := range stored {
		ids = append(ids, s.id)
	}
	var n int
	if err := in.store.DB.Get(&n, `SELECT count(*) FROM messages WHERE id = ANY($1)`, pq.Array(ids)); err != nil || n != len(ids) {
		t.Fatalf("%d of %d answered sends are stored (%v)", n, len(ids), err)
	}

	// Back up; the refused sends are retried with their keys.
	in.serve("run")
	for _, s := range refused {
		if again := post(s.key, s.text); again.code != 201 {
			t.Errorf("retry of %s: %d %v", s.key, again.code, again.err)
		}
	}
	var texts []string
	for _, s := range sends {
		texts = append(texts, s.text)
	}
	var rows []struct {
		Text  string `db:"text"`
		Count int    `db:"count"`
	}
	if err := in.store.DB.Select(&rows, `SELECT text, count(*) AS count FROM messages WHERE text = ANY($1) GROUP BY text`,
		pq.Array(texts)); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(texts) {
		t.Errorf("%d of %d sends are stored", len(rows), len(texts))
	}
	for _, r := range rows {
		if r.Count != 1 {
			t.Errorf("%q stored %d times", r.Text, r.Count)
		}
	}

	// Nothing the stopped worker owed is lost: the sandbox status
	// changes and the webhook deliveries happen.
	eventually(t, 60*time.Second, "every message delivered", func() (bool, string) {
		var pending []string
		err := in.store.DB.Select(&pending, `SELECT id || ' ' || status FROM messages
			WHERE conversation_id = $1 AND direction = 'outbound' AND status <> 'delivered'`, conv)
		return err == nil && len(pending) == 0, fmt.Sprint(len(pending), " not delivered ", err)
	})
	eventually(t, 60*time.Second, "every event at the receiver", func() (bool, string) {
		var events []string
		if err := in.store.DB.Select(&events, `SELECT id FROM events WHERE conversation_id = $1`, conv); err != nil {
			return false, err.Error()
		}
		got := rc.received()
		var missing []string
		for _, id := range events {
			if got[id] == 0 {
				missing = append(missing, id)
			}
		}
		return len(events) > len(texts) && len(missing) == 0,
			fmt.Sprintf("%d events, %d missing: %s", len(events), len(missing), strings.Join(missing[:min(3, len(missing))], " "))
	})
	t.Logf("%d sends: %d answered before SIGTERM, %d refused and retried", len(sends), len(stored), len(refused))
}

// TestSIGTERMWhileStartingIsAStop: a process told to stop while it still
// waits for its database (here a listener that takes the connection and
// never answers, as an overloaded Postgres may for a while) stops at once
// and exits 0, as it does once it serves.
func TestSIGTERMWhileStartingIsAStop(t *testing.T) {
	in := newInstallation(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Each command's connection is held open, unanswered, until the
	// command has exited.
	accepted := make(chan net.Conn, 3)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for _, command := range []string{"worker", "serve", "run"} {
		p := in.startEnv(map[string]string{
			"DATABASE_URL": "postgres://msgsvc@" + ln.Addr().String() + "/msgsvc?sslmode=disable&connect_timeout=60"}, command)
		var conn net.Conn
		select {
		case conn = <-accepted:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s never opened its database", command)
		}
		p.terminate(t)
		if code := p.wait(t, 10*time.Second); code != 0 {
			t.Errorf("%s told to stop while opening its database exited %d:\n%s", command, code, p.logs.String())
		}
		_ = conn.Close()
	}
}

// A cancellation is a stop only when the signal came: the same error with
// no signal, and another error after one, are failures.
func TestStoppedIsCleanOnlyForTheSignal(t *testing.T) {
	signalled, cancel := context.WithCancel(t.Context())
	cancel()
	cut := fmt.Errorf("DATABASE_URL: %w", context.Canceled)
	other := errors.New("DATABASE_URL: not a URL")
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want error
	}{
		{"a signal cut the start short", signalled, cut, nil},
		{"a cancellation with no signal", t.Context(), cut, cut},
		{"another error after a signal", signalled, other, other},
		{"a clean end", signalled, nil, nil},
	} {
		if got := stopped(c.ctx, c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
