package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/ops/metrics"
)

// quietTasks are the periodic wake-ups whose successes are routine.
var quietTasks = map[string]bool{TypeAIDispatch: true}

// Observe writes one log line per task run (type, task id, outcome,
// duration, and the error of a failure) and records the task's metrics. It
// logs no payload: payloads are ids, but nothing here should ever have to
// know that. The success of a task in quietTasks is logged at DEBUG: it runs
// about once a second while the service is idle and its metrics count it.
func Observe(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		err := next.ProcessTask(ctx, t)
		d := time.Since(start)
		metrics.ObserveJob(t.Type(), err, d)
		id, _ := asynq.GetTaskID(ctx)
		attrs := []slog.Attr{slog.String("type", t.Type()), slog.String("task_id", id),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000)}
		switch {
		case err == nil:
			level := slog.LevelInfo
			if quietTasks[t.Type()] {
				level = slog.LevelDebug
			}
			slog.LogAttrs(ctx, level, "job", append(attrs, slog.String("outcome", "succeeded"))...)
		case errors.Is(err, context.Canceled) && ctx.Err() != nil:
			// Shutting down: asynq hands the task back to the queue.
			slog.LogAttrs(ctx, slog.LevelInfo, "job", append(attrs, slog.String("outcome", "handed_back"))...)
		default:
			slog.LogAttrs(ctx, slog.LevelWarn, "job", append(attrs, slog.String("outcome", "failed"), slog.Any("err", err))...)
		}
		return err
	})
}
