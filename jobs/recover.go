package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/hibiken/asynq"
)

// Recover turns a handler's panic into an error, logged with the task's id
// and type and the stack, so one bad task never stops the worker; asynq then
// treats it as any failed attempt.
func Recover(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) (err error) {
		defer func() {
			if v := recover(); v != nil {
				id, _ := asynq.GetTaskID(ctx)
				slog.Error("task panicked", "task_id", id, "type", t.Type(), "panic", v, "stack", string(debug.Stack()))
				err = fmt.Errorf("%s: panic: %v", t.Type(), v)
			}
		}()
		return next.ProcessTask(ctx, t)
	})
}
