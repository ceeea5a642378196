package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
)

// asynqLogger writes asynq's own messages (a lost Redis connection, a
// task whose lease ran out) through slog, so they come out in the
// process's format, JSON in production, and through its redaction, rather
// than as asynq's plain text lines.
type asynqLogger struct {
	// to is nil for slog's default logger, the one of the process.
	to *slog.Logger
}

func (l asynqLogger) log(level slog.Level, args []any) {
	to := l.to
	if to == nil {
		to = slog.Default()
	}
	to.Log(context.Background(), level, fmt.Sprint(args...), "component", "asynq")
}

func (l asynqLogger) Debug(args ...any) { l.log(slog.LevelDebug, args) }
func (l asynqLogger) Info(args ...any)  { l.log(slog.LevelInfo, args) }
func (l asynqLogger) Warn(args ...any)  { l.log(slog.LevelWarn, args) }
func (l asynqLogger) Error(args ...any) { l.log(slog.LevelError, args) }

// Fatal logs and exits, as asynq expects of it.
func (l asynqLogger) Fatal(args ...any) {
	l.log(slog.LevelError, args)
	os.Exit(1)
}
