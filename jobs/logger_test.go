package jobs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/msgsvc/msgsvc/ops/logging"
)

func TestAsynqLogsThroughSlog(t *testing.T) {
	var buf bytes.Buffer
	l := asynqLogger{to: logging.New("json", &buf, slog.LevelInfo)}
	l.Debug("not shown")
	l.Warn("lease expired for task ", 42)
	var entry map[string]any
	if err := json.Unmarshal(buf.Bytes(), &entry); err != nil {
		t.Fatalf("not one JSON line: %q", buf.String())
	}
	if entry["msg"] != "lease expired for task 42" || entry["level"] != "WARN" || entry["component"] != "asynq" {
		t.Errorf("got %v", entry)
	}
}
