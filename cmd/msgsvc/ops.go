package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/msgsvc/msgsvc/ops/health"
	"github.com/msgsvc/msgsvc/ops/logging"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/ops/redisconn"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/redis/go-redis/v9"
)

// logs gathers the process's log lines for stderr (logging.Buffered):
// main flushes it on the way out.
var logs = logging.NewBuffered(os.Stderr, logging.FlushEvery)

// setupLogging makes the default logger the one of MSGSVC_LOG_FORMAT: text
// in development, JSON in production.
func setupLogging(cfg *Config) {
	slog.SetDefault(logging.New(cfg.Live.LogFormat, logs, slog.LevelInfo))
}

// operations is what serve, worker and run share for operators:
// the probes, the metrics listener and the queue dashboard.
type operations struct {
	Probes *health.Checker
	// Queues is asynqmon, for rest.Server to mount at /admin/queues.
	Queues http.Handler
	redis  *redis.Client
	insp   *asynq.Inspector
	server *http.Server
}

// startOperations checks Postgres and Redis for /readyz, reports the asynq
// queue depths, and serves /metrics, pprof and the probes on
// MSGSVC_METRICS_ADDR. Close stops it all.
func startOperations(cfg *Config, store *repo.Store, redisOpt asynq.RedisConnOpt) (*operations, error) {
	o := &operations{redis: cfg.Redis.Client(), insp: asynq.NewInspector(redisOpt)}
	o.Probes = &health.Checker{Checks: map[string]health.Check{
		"postgres": store.Ready,
		"redis":    func(ctx context.Context) error { return redisconn.Ready(ctx, o.redis) },
	}}
	o.Queues = asynqmon.New(asynqmon.Options{RootPath: rest.QueuesPath, RedisConnOpt: redisOpt})
	metrics.SetQueueInspector(o.insp)
	ln, err := net.Listen("tcp", cfg.Live.MetricsAddr)
	if err != nil {
		o.Close()
		return nil, fmt.Errorf("MSGSVC_METRICS_ADDR: %w", err)
	}
	o.server = newHTTPServer("", metrics.Handler(o.Probes))
	go func() {
		if err := o.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics listener stopped", "addr", cfg.Live.MetricsAddr, "err", err)
		}
	}()
	slog.Info("metrics listening", "addr", ln.Addr().String())
	return o, nil
}

// Close stops the metrics listener and releases the connections.
func (o *operations) Close() {
	if o.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := o.server.Shutdown(ctx); err != nil {
			slog.Warn("metrics listener shutdown", "err", err)
		}
	}
	metrics.SetQueueInspector(nil)
	if err := o.insp.Close(); err != nil {
		slog.Debug("close asynq inspector", "err", err)
	}
	if err := o.redis.Close(); err != nil {
		slog.Debug("close redis", "err", err)
	}
}
