package rest_test

import (
	"testing"
	"time"
)

// A widget's socket does not hold the request that opened it: the request
// is over (logged as 101) while the socket is open, and the socket is still
// served, pushes included. Otherwise every open socket would keep its
// request's handler stack and objects for as long as it stays open.
func TestWidgetSocketOutlivesItsRequest(t *testing.T) {
	logs := captureLogs(t)
	a := widgetAPI(t, 30, time.Hour)
	token := session(a, nil)["visitor_token"].(string)
	in := a.Want(visitorDo(a, "POST", "/widget/v1/messages", mainOrigin, token, map[string]any{"text": "hello"}), 201, "").Data()
	c := dialWidget(t, a.HTTP.URL, token)
	var logged []map[string]any
	for deadline := time.Now().Add(10 * time.Second); len(logged) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the socket's request is not over while the socket is open")
		}
		logged = logLines(t, logs.String(), "route", "/widget/v1/ws")
	}
	if logged[0]["status"] != float64(101) {
		t.Errorf("the socket's request logged %v", logged[0])
	}
	sent := a.Want(a.Do("POST", "/v1/messages", "live_all", map[string]any{"conversation_id": in["conversation_id"], "text": "still here"}), 201, "").Data()
	if p := next(t, c, "the reply", func(p pushFrame) bool { return p.Type == "message" }); p.Message.ID != sent["id"] {
		t.Errorf("pushed %s, want %s", p.Message.ID, sent["id"])
	}
}
