package sse

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestReader(t *testing.T) {
	stream := "retry: 2000\n: connected\n\n" +
		"id: evt_1\nevent: message.received\ndata: {\"id\":\"evt_1\"}\n\n" +
		": keep-alive\n\n" +
		"event: note\ndata: a\ndata: b\n\n" +
		"id: evt_3\nevent: cut"
	r := NewReader(strings.NewReader(stream))
	ev, err := r.Next()
	if err != nil || ev.ID != "evt_1" || ev.Type != "message.received" || string(ev.Data) != `{"id":"evt_1"}` {
		t.Fatalf("first: %+v %v", ev, err)
	}
	if r.Retry != 2*time.Second {
		t.Fatalf("retry %v", r.Retry)
	}
	ev, err = r.Next()
	if err != nil || ev.ID != "evt_1" || ev.Type != "note" || string(ev.Data) != "a\nb" {
		t.Fatalf("second: %+v %v", ev, err)
	}
	if ev, err = r.Next(); err != io.EOF {
		t.Fatalf("a cut-off event was returned: %+v %v", ev, err)
	}
}
