// Command msgsvc is the one binary of the service: run, serve, worker,
// migrate, seed and rekey (docs/configuration.md).
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
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/eventstream"
	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/graph/webhook"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/ops/gctune"
	"github.com/msgsvc/msgsvc/ops/redisconn"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest"
)

const usage = `usage: msgsvc <command>

commands:
  run              the HTTP API and the workers in one process
  serve            the HTTP API only
  worker           the background workers only
  migrate          create the database if missing, apply migrations
  rekey            re-seal stored credentials and secrets with the first
                   MSGSVC_ENCRYPTION_KEY and MSGSVC_SECRET
  seed --file F    load a workspace fixture, idempotently
  listen --api URL --key KEY --forward URL [--events a,b] [--secret S]
                   forward the key's events to a local URL, signed
                   (msgsvc listen -h for its flags)

configuration: environment variables (docs/configuration.md)
`

func main() {
	if os.Getenv("GOGC") == "" {
		// A request allocates little that lives: the heap may grow by a
		// few tens of megabytes between collections (docs/configuration.md).
		go gctune.Run(context.Background(), time.Second)
	}
	err := run(os.Args[1:])
	_ = logs.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "msgsvc:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(os.Stdout, usage)
		return nil
	case "listen":
		return listenCmd(args[1:], os.Getenv, os.Stdout)
	}
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	setupLogging(cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "migrate":
		return migrate(ctx, cfg)
	case "seed":
		return seedFile(ctx, cfg, args[1:])
	case "rekey":
		return rekey(ctx, cfg, os.Stdout)
	case "serve", "worker", "run":
		return stopped(ctx, start(ctx, cfg, args[0] != "worker", args[0] != "serve"))
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

func withStore(ctx context.Context, cfg *Config, fn func(*repo.Store) error) error {
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.SchemaCurrent(ctx); err != nil {
		// Not fatal: `msgsvc migrate` may be running now. /readyz says
		// not ready, and requests answer 503, until it is done.
		slog.Error("DATABASE_URL: the database is not ready for this binary", "err", err)
	}
	return fn(store)
}

// openStore opens the database of DATABASE_URL with the pool settings. With
// MSGSVC_DB_PREPARE on it checks that the connection keeps prepared
// statements, and refuses to go on behind a pooler that does not: such a
// pooler runs one client's statement with another's parameters.
//
// It returns as soon as ctx ends: lib/pq does not watch the context while
// a connection starts up, and a server that takes the connection but does
// not answer (an overloaded Postgres, a black-holed address) would hold a
// process told to stop until the connection's timeout, if it has one. The
// store opened after that is closed when it comes.
func openStore(ctx context.Context, cfg *Config) (*repo.Store, error) {
	type opened struct {
		store *repo.Store
		err   error
	}
	done := make(chan opened, 1)
	go func() {
		store, err := openStoreNow(ctx, cfg)
		done <- opened{store, err}
	}()
	select {
	case o := <-done:
		return o.store, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.store != nil {
				o.store.Close()
			}
		}()
		return nil, fmt.Errorf("DATABASE_URL: %w", ctx.Err())
	}
}

// openStoreNow is openStore's work, as long as it takes.
func openStoreNow(ctx context.Context, cfg *Config) (*repo.Store, error) {
	store, err := repo.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	store.SetMaxConns(cfg.DBMaxConns)
	store.SetPrepare(cfg.DBPrepare)
	if err := store.CheckPrepared(ctx); err != nil {
		store.Close()
		if errors.Is(err, repo.ErrPreparedLost) || errors.Is(err, repo.ErrStartupOptions) {
			return nil, fmt.Errorf("MSGSVC_DB_PREPARE: %w", err)
		}
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	return store, nil
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
	err = withStore(ctx, cfg, func(s *repo.Store) error {
		if err := (&seed.Seeder{Store: s, Seal: cfg.Seal}).Seed(ctx, fixture); err != nil {
			return fmt.Errorf("%s: %w (nothing was written)", *file, err)
		}
		return nil
	})
	if err == nil {
		announceKeyChange(ctx, cfg)
	}
	return err
}

// keyCacheTTL bounds how long a serving process may use a key or workspace
// it resolved when a change announcement does not reach it.
const keyCacheTTL = 5 * time.Second

// announceKeyChange tells running servers that keys or workspaces may have
// changed, so a revoked key stops at once rather than after keyCacheTTL.
func announceKeyChange(ctx context.Context, cfg *Config) {
	rdb := cfg.Redis.Client()
	defer rdb.Close()
	if err := auth.Announce(ctx, rdb); err != nil {
		slog.Warn("running servers were not told of the new keys; they pick them up within "+keyCacheTTL.String(), "err", err)
	}
}

// stopped is what a serving command answers for err, the end of start
// under ctx, the signals' context. A signal that arrives while the process
// is still starting (opening its database, say, which waits for an
// overloaded Postgres) cuts that step short with ctx's cancellation: the
// process stops as asked, before it served anything, and exits 0 as it
// does when the signal comes later. Any other error, and a cancellation
// with no signal, are failures.
func stopped(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		slog.Info("stopped by a signal", "cause", err.Error())
		return nil
	}
	return err
}

// start runs the API, the workers or both until the context ends.
func start(ctx context.Context, cfg *Config, api, workers bool) error {
	if cfg.SecretGenerated {
		slog.Warn("MSGSVC_SECRET is not set; using a random one, so cursors, file links and webhook signing secrets die with this process")
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.SchemaCurrent(ctx); err != nil {
		// Not fatal: `msgsvc migrate` may be running now. /readyz says
		// not ready, and requests answer 503, until it is done.
		slog.Error("DATABASE_URL: the database is not ready for this binary", "err", err)
	}
	redisOpt := cfg.Redis.Asynq()
	ops, err := startOperations(cfg, store, redisOpt)
	if err != nil {
		return err
	}
	defer ops.Close()
	client := jobs.NewClient(redisOpt)
	client.Queue = cfg.Queue
	defer client.Close()
	gcfg, closeWiring, err := graphConfig(cfg, store, client)
	if err != nil {
		return err
	}
	defer closeWiring()
	roleConfig(ctx, &gcfg, api, workers)
	gcfg.KeyChangeRedis = cfg.Redis.Client()
	defer gcfg.KeyChangeRedis.Close()
	resolver := graph.New(gcfg)

	errs := make(chan error, 4)
	if workers {
		stop, err := startWorkers(ctx, cfg, redisOpt, store, resolver.Services, client)
		if err != nil {
			return err
		}
		defer stop()
	}
	if api {
		if err := serveMail(ctx, cfg.Live, resolver.Inbox, errs); err != nil {
			return err
		}
		rdb := cfg.Redis.Client()
		defer rdb.Close()
		if err := auth.Listen(ctx, rdb, gcfg.KeyCache); err != nil {
			slog.Warn("key changes of other processes reach this one only after "+keyCacheTTL.String(), "err", err)
		}
		limiter := rest.NewRedisLimiter(rdb)
		requestLog := startRequestLog(ctx, store)
		defer requestLog.stop()
		server := &rest.Server{RequestLog: requestLog.Recorder, Resolver: resolver, Limiter: limiter, AdminToken: cfg.AdminToken, TrustedProxies: cfg.TrustedProxies,
			Widget: widgetAPI(ctx, cfg, resolver, rdb, limiter), Probes: ops.Probes, Queues: ops.Queues, Playground: !cfg.Production, Demo: !cfg.Production,
			QueuesRedis: func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
			Meta:        rest.MetaHooks{AppSecret: cfg.Live.MetaAppSecret, VerifyToken: cfg.Live.MetaVerifyToken}, BodyTimeout: cfg.BodyTimeout, PublicURL: cfg.PublicURL}
		httpServer := newHTTPServer(cfg.Addr, server.Handler())
		httpServer.RegisterOnShutdown(server.Drain)
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

// runningRequestLog is the request log's writer and how to stop it.
type runningRequestLog struct {
	*requestlog.Recorder
	stop func()
}

// startRequestLog writes the /v1 request log in batches until stop, which
// writes what is buffered: called after the HTTP server's shutdown, so the
// last requests are kept.
func startRequestLog(ctx context.Context, store *repo.Store) runningRequestLog {
	r := requestlog.NewRecorder(store, 0)
	logCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { r.Run(logCtx); close(done) }()
	return runningRequestLog{Recorder: r, stop: func() { cancel(); <-done }}
}

// newHTTPServer is an HTTP server of the process: a request's headers
// must come within 10 s, and a keep-alive connection idle for 2 minutes
// is closed (with neither, an idle connection is kept for ever).
func newHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
}

// graphConfig is the configuration the services are built from: every
// channel's adapter and the processing configuration. The returned func
// releases what it opened.
func graphConfig(cfg *Config, store *repo.Store, client *jobs.Client) (graph.Config, func(), error) {
	g := graph.Config{Store: store, Jobs: client, Secret: cfg.Secret, PreviousSecrets: cfg.PreviousSecrets, Clock: time.Now,
		PublicURL: cfg.PublicURL, Seal: cfg.Seal, ProviderTimeout: cfg.Live.ProviderTimeout, Development: !cfg.Production,
		ProviderUnknownAfter: cfg.Live.ProviderUnknownAfter, EmailRemoteImages: cfg.Live.EmailRemoteImages,
		Adapters: map[string]channels.Adapter{"instagram": instagramAdapter(cfg.Live)}}
	wireMeta(&g, cfg, client)
	if err := wireEmail(cfg.Live, &g); err != nil {
		return g, nil, err
	}
	g.Webhooks = &webhook.Config{AllowInsecure: cfg.WebhookAllowInsecure,
		RetrySchedule: cfg.WebhookRetrySchedule, GiveUpAfter: cfg.WebhookGiveUpAfter,
		Timeout: cfg.WebhookTimeout, EgressIPs: cfg.EgressIPs, Retention: cfg.EventRetention,
		SweepGrace: cfg.Sweep.Grace}
	closeWakes := wireWebsite(&g, cfg.Redis)
	g.AI = &graph.AIConfig{URL: cfg.Live.AIURL, Model: cfg.Live.AIModel, APIKey: cfg.Live.AIAPIKey}
	return g, closeWakes, nil
}

// roleConfig completes g for the process's role: a worker's fan-out
// attempts what it finds due in the process at once; a serving process
// caches keys and shares its event streams' horizon reads.
func roleConfig(ctx context.Context, g *graph.Config, api, workers bool) {
	if workers && g.Webhooks != nil {
		g.Webhooks.Here = ctx
	}
	if api {
		g.KeyCache = &auth.CachedKeys{Store: g.Store, Clock: time.Now, TTL: keyCacheTTL}
		// On the wall clock: it paces polling, no rule of the data.
		g.StreamHorizon = &eventstream.SharedHorizon{Store: g.Store, Every: eventstream.DefaultPoll}
	}
}

// startWorkers runs the job server and the periodic jobs until ctx ends;
// the returned func shuts the job server down.
func startWorkers(ctx context.Context, cfg *Config, redisOpt asynq.RedisConnOpt, store *repo.Store, svc *graph.Services, client *jobs.Client) (func(), error) {
	srv := jobs.NewServerOn(redisOpt, 10, cfg.Queue)
	mux := asynq.NewServeMux()
	jobs.Register(mux, jobs.Handlers{Webhooks: svc.Webhooks, AI: svc.AI, Mail: svc.Mail, Meta: svc.MetaHooks})
	if err := srv.Start(mux); err != nil {
		return nil, fmt.Errorf("REDIS_URL: start workers: %w", err)
	}
	// Inbound mail has slots of its own; the main server still runs a mail
	// task queued on its queue by an older version.
	mailSrv := jobs.NewMailServerOn(redisOpt, jobs.MailConcurrency, cfg.Queue)
	if err := mailSrv.Start(mux); err != nil {
		srv.Shutdown()
		return nil, fmt.Errorf("REDIS_URL: start mail workers: %w", err)
	}
	go jobs.RunAIDispatch(ctx, client, time.Second)
	go jobs.RunMailSweep(ctx, svc.Mail, 2*time.Second)
	go jobs.RunWebhookReverify(ctx, svc.Webhooks, 2*time.Second)
	queueRedis := cfg.Redis.Client()
	lease := jobs.TemplateSyncLease(queueRedis, cfg.Queue)
	go jobs.RunTemplateSync(ctx, jobs.LeasedTemplateSync(svc.MetaHooks, lease, cfg.Live.TemplateSyncEvery), cfg.Live.TemplateSyncEvery)
	if svc.InstagramTokens != nil {
		go jobs.RunInstagramTokenRefresh(ctx, svc.InstagramTokens, jobs.InstagramTokenLease(queueRedis, cfg.Queue), jobs.InstagramTokenEvery)
	}
	go jobs.RunSandboxDeliveries(ctx, svc.Sends, cfg.SandboxDeliveryDelay)
	go jobs.RunCampaigns(ctx, campaign(cfg, store, svc))
	go jobs.RunSweeps(ctx, jobs.Sweeps{Webhooks: svc.Webhooks, Idempotency: store, Archive: client, Queues: client, Sending: svc.Sends, MetaHooks: svc.MetaHooks, Notices: svc.Notices,
		RequestLogs: svc.RequestLogs,
		Queue: func(ctx context.Context) (string, error) {
			s, err := redisconn.Describe(ctx, queueRedis)
			return s.RunID + " " + s.Role, err
		},
		HandOverFailed: client.HandOverFailed, Resweep: svc.Webhooks.ResweepDeliveries}, cfg.Sweep.Every)
	return func() { srv.Shutdown(); mailSrv.Shutdown(); queueRedis.Close() }, nil
}
