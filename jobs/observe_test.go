package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
)

// The AI's dispatch pass, which runs about once a second, logs its success
// at DEBUG; other tasks' successes and every failure stay visible at INFO.
func TestObserveLogLevels(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	ok := Observe(asynq.HandlerFunc(func(context.Context, *asynq.Task) error { return nil }))
	fails := Observe(asynq.HandlerFunc(func(context.Context, *asynq.Task) error { return errors.New("boom") }))

	_ = ok.ProcessTask(t.Context(), asynq.NewTask(TypeAIDispatch, nil))
	if buf.Len() != 0 {
		t.Errorf("ai:dispatch success logged at INFO: %s", buf.String())
	}
	_ = fails.ProcessTask(t.Context(), asynq.NewTask(TypeAIDispatch, nil))
	_ = ok.ProcessTask(t.Context(), asynq.NewTask("webhook:deliver", nil))
	out := buf.String()
	if !strings.Contains(out, "type=ai:dispatch") || !strings.Contains(out, "outcome=failed") ||
		!strings.Contains(out, "type=webhook:deliver") || !strings.Contains(out, "outcome=succeeded") {
		t.Errorf("log:\n%s", out)
	}
}
