// Command msgsvc is the one binary of the service: run, serve, worker,
// migrate and seed (decisions 9).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/redis/go-redis/v9"
)

const usage = `usage: msgsvc <command>

commands:
  run              the HTTP API and the workers in one process
  serve            the HTTP API only
  worker           the background workers only
  migrate          apply database migrations
  seed --file F    load a workspace fixture, idempotently
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "msgsvc:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("no command given")
	}
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "migrate":
		return withStore(ctx, cfg, func(s *repo.Store) error { return s.Migrate(ctx) })
	case "seed":
		return seedFile(ctx, cfg, args[1:])
	case "serve":
		return start(ctx, cfg, true, false)
	case "worker":
		return start(ctx, cfg, false, true)
	case "run":
		return start(ctx, cfg, true, true)
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

func withStore(ctx context.Context, cfg *Config, fn func(*repo.Store) error) error {
	store, err := repo.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer store.Close()
	return fn(store)
}

func seedFile(ctx context.Context, cfg *Config, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	file := fs.String("file", "", "workspace fixture (JSON)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return errors.New("seed needs --file F")
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	fixture, err := seed.ParseFixture(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	return withStore(ctx, cfg, func(s *repo.Store) error {
		if err := (&seed.Seeder{Store: s}).Seed(ctx, fixture); err != nil {
			return fmt.Errorf("%s: %w (nothing was written)", *file, err)
		}
		return nil
	})
}

// start runs the API, the workers or both until the context ends.
func start(ctx context.Context, cfg *Config, api, workers bool) error {
	if cfg.SecretGenerated {
		slog.Warn("MSGSVC_SECRET is not set; using a random one, so cursors, file links and webhook signing secrets die with this process")
	}
	store, err := repo.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer store.Close()
	redisOpt, err := asynq.ParseRedisURI(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	client := jobs.NewClient(redisOpt)
	client.SandboxDelay = cfg.SandboxDeliveryDelay
	defer client.Close()
	resolver := &graph.Resolver{Store: store, Jobs: client, Secret: cfg.Secret, Clock: time.Now}
	// Live sends have no provider adapters yet: graph refuses them with
	// channel_unavailable rather than pretend to send.
	resolver.PublicURL = cfg.PublicURL
	resolver.Webhooks = &webhook.Config{AllowInsecure: cfg.WebhookAllowInsecure,
		RetrySchedule: cfg.WebhookRetrySchedule, GiveUpAfter: cfg.WebhookGiveUpAfter,
		Timeout: cfg.WebhookTimeout, EgressIPs: cfg.EgressIPs, Retention: cfg.EventRetention,
		SweepGrace: 30 * time.Second}

	errs := make(chan error, 2)
	if workers {
		srv := jobs.NewServer(redisOpt, 10)
		mux := asynq.NewServeMux()
		jobs.Register(mux, jobs.Handlers{Webhooks: resolver.WebhookService(), Sandbox: resolver})
		if err := srv.Start(mux); err != nil {
			return fmt.Errorf("REDIS_URL: start workers: %w", err)
		}
		defer srv.Shutdown()
		go jobs.RunSweeps(ctx, jobs.Sweeps{Webhooks: resolver.WebhookService(), Sandbox: resolver, Idempotency: resolver}, 2*time.Second, cfg.SandboxDeliveryDelay)
	}
	if api {
		ropt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		rdb := redis.NewClient(ropt)
		defer rdb.Close()
		server := &rest.Server{Resolver: resolver, Limiter: rest.NewRedisLimiter(rdb), AdminToken: cfg.AdminToken}
		httpServer := &http.Server{Addr: cfg.Addr, Handler: server.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- httpServer.ListenAndServe() }()
		defer func() {
			shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := httpServer.Shutdown(shutdown); err != nil {
				slog.Warn("HTTP shutdown", "err", err)
			}
		}()
		slog.Info("msgsvc listening", "addr", cfg.Addr)
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("MSGSVC_ADDR: %w", err)
	}
}
