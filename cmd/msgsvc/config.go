package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/msgsvc/msgsvc/channels/email"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/ops/redisconn"
	"github.com/msgsvc/msgsvc/rest/clientaddr"
)

// Config is the service's configuration, read from the environment
// (docs/configuration.md).
type Config struct {
	DatabaseURL string
	RedisURL    string
	// Redis is RedisURL parsed, for every Redis client of the process.
	Redis *redisconn.Options
	Addr  string
	// Secret is the service secret that signs and seals (MSGSVC_SECRET, a
	// comma-separated list: its first); PreviousSecrets are the rest of
	// the list, which still verify and open.
	Secret               string
	PreviousSecrets      []string
	AdminToken           string
	WebhookAllowInsecure bool
	WebhookRetrySchedule []time.Duration
	WebhookGiveUpAfter   time.Duration
	WebhookTimeout       time.Duration
	SandboxDeliveryDelay time.Duration
	EgressIPs            []string
	EventRetention       time.Duration
	// BodyTimeout bounds how long a request body may take to arrive
	// (MSGSVC_HTTP_BODY_TIMEOUT, default 60s).
	BodyTimeout time.Duration
	// SecretGenerated says MSGSVC_SECRET was unset and a random one is used.
	SecretGenerated bool
	// DBMaxConns bounds the process's Postgres connections
	// (MSGSVC_DB_MAX_CONNS, default 40): every process of an installation
	// together must stay under the server's max_connections.
	DBMaxConns int
	// DBPrepare says statements are prepared once per connection
	// (MSGSVC_DB_PREPARE, default true); off for a pooler that cannot carry
	// prepared statements.
	DBPrepare bool
	// Queue is the asynq queue the installation's processes share
	// (MSGSVC_QUEUE, default msgsvc), with jobs.WebhookQueue(Queue) for
	// webhook deliveries: two installations on one Redis database each
	// need their own.
	Queue string
	// Production is MSGSVC_ENV=production: the secret is required, logs
	// are JSON, and development aids (the GraphQL playground) are off.
	Production bool
	// PublicURL is where clients reach the API; signed file links start
	// with it (MSGSVC_PUBLIC_URL, default http:// + MSGSVC_ADDR).
	PublicURL string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (MSGSVC_TRUSTED_PROXIES, default none).
	TrustedProxies clientaddr.Proxies
	// Sweep is when lost tasks are caught up (MSGSVC_SWEEP_*).
	Sweep SweepConfig
	// Live configures the live channels, own processing and operations.
	Live LiveConfig
	// Seal seals provider credentials at rest (MSGSVC_ENCRYPTION_KEY's
	// first key, or the one derived from MSGSVC_SECRET's first) and opens
	// them with any of its keys.
	Seal seal.Key
}

// queueName is the form of MSGSVC_QUEUE: no character Redis key patterns
// or asynq's hash tags give a meaning to.
var queueName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// loadConfig reads the environment, each variable NAME also as NAME_FILE
// (fileEnv); an invalid value is an error that names its variable.
func loadConfig(getenv func(string) string) (*Config, error) {
	env := &fileEnv{getenv: getenv, read: os.ReadFile}
	c, err := readConfig(env.get)
	if env.err != nil {
		return nil, env.err
	}
	return c, err
}

func readConfig(getenv func(string) string) (*Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	duration := func(name, def string) (time.Duration, error) {
		d, err := time.ParseDuration(get(name, def))
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%s: %q is not a duration like 10s, 2m or 72h", name, get(name, def))
		}
		return d, nil
	}
	c := &Config{
		DatabaseURL: get("DATABASE_URL", "postgres://localhost:5432/msgsvc?sslmode=disable"),
		RedisURL:    get("REDIS_URL", "redis://localhost:6379/0"),
		Addr:        get("MSGSVC_ADDR", "127.0.0.1:8080"),
		Secret:      get("MSGSVC_SECRET", ""),
		AdminToken:  get("MSGSVC_ADMIN_TOKEN", ""),
	}
	if err := checkDatabaseURL(c.DatabaseURL); err != nil {
		return nil, err
	}
	var err error
	if c.Redis, err = redisconn.Parse(c.RedisURL); err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return nil, fmt.Errorf("MSGSVC_ADDR: %q is not host:port", c.Addr)
	}
	c.PublicURL = strings.TrimRight(get("MSGSVC_PUBLIC_URL", "http://"+c.Addr), "/")
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("MSGSVC_PUBLIC_URL: %q is not an http(s) URL", c.PublicURL)
	}
	if err := c.loadWebhooks(get, duration); err != nil {
		return nil, err
	}
	if c.SandboxDeliveryDelay, err = duration("MSGSVC_SANDBOX_DELIVERY_DELAY", "2s"); err != nil {
		return nil, err
	}
	if c.EventRetention, err = duration("MSGSVC_EVENT_RETENTION", "720h"); err != nil {
		return nil, err
	}
	if c.EgressIPs, err = egressIPs(get("MSGSVC_EGRESS_IPS", "")); err != nil {
		return nil, err
	}
	if c.TrustedProxies, err = clientaddr.Parse(get("MSGSVC_TRUSTED_PROXIES", "")); err != nil {
		return nil, fmt.Errorf("MSGSVC_TRUSTED_PROXIES: %w", err)
	}
	mode := get("MSGSVC_ENV", "development")
	if c.Production = mode == "production"; !c.Production && mode != "development" {
		return nil, fmt.Errorf("MSGSVC_ENV: %q is not development or production", mode)
	}
	if err := c.loadLimits(get, duration); err != nil {
		return nil, err
	}
	if c.Queue = get("MSGSVC_QUEUE", jobs.Queue); !queueName.MatchString(c.Queue) {
		return nil, fmt.Errorf("MSGSVC_QUEUE: %q is not 1 to 64 letters, digits, - or _", c.Queue)
	}
	if err := c.checkSecret(mode); err != nil {
		return nil, err
	}
	if err := c.checkUnsafe(); err != nil {
		return nil, err
	}
	if err := c.checkPublicURL(get("MSGSVC_PUBLIC_URL", "")); err != nil {
		return nil, err
	}
	if c.Sweep, err = loadSweep(get); err != nil {
		return nil, err
	}
	if c.Live, c.Seal, err = loadLive(get, mode, append([]string{c.Secret}, c.PreviousSecrets...)); err != nil {
		return nil, err
	}
	if c.Live.SMTPHostname == "" {
		c.Live.SMTPHostname = email.HelloName(c.PublicURL)
	}
	return c, nil
}

// checkDatabaseURL refuses a DATABASE_URL the driver cannot read, without
// showing it: it holds the password, and the URL parser's errors quote it.
func checkDatabaseURL(dsn string) error {
	_, err := pq.NewConfig(dsn)
	var bad *url.Error
	if errors.As(err, &bad) {
		return errors.New("DATABASE_URL: not a URL like postgres://user:pass@host:5432/msgsvc (the value is not shown: it holds the password)")
	}
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	return nil
}

// egressIPs reads MSGSVC_EGRESS_IPS: comma-separated IP addresses.
func egressIPs(raw string) ([]string, error) {
	ips := []string{}
	for _, ip := range strings.Split(raw, ",") {
		if ip = strings.TrimSpace(ip); ip == "" {
			continue
		}
		if net.ParseIP(ip) == nil {
			return nil, fmt.Errorf("MSGSVC_EGRESS_IPS: %q is not an IP address", ip)
		}
		ips = append(ips, ip)
	}
	return ips, nil
}

// boolSetting reads a true-or-false setting.
func boolSetting(get func(name, def string) string, name, def string) (bool, error) {
	switch v := strings.ToLower(get(name, def)); v {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	default:
		return false, fmt.Errorf("%s: %q is not true or false", name, v)
	}
}

// loadWebhooks reads the MSGSVC_WEBHOOK_* settings: plain-HTTP permission,
// the retry schedule, when to give up and the attempt timeout.
func (c *Config) loadWebhooks(get func(name, def string) string, duration func(name, def string) (time.Duration, error)) error {
	var err error
	if c.WebhookAllowInsecure, err = boolSetting(get, "MSGSVC_WEBHOOK_ALLOW_INSECURE", "false"); err != nil {
		return err
	}
	for _, part := range strings.Split(get("MSGSVC_WEBHOOK_RETRY_SCHEDULE", "1m,5m,30m,2h,6h,12h"), ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return fmt.Errorf("MSGSVC_WEBHOOK_RETRY_SCHEDULE: %q is not a positive duration", part)
		}
		c.WebhookRetrySchedule = append(c.WebhookRetrySchedule, d)
	}
	if c.WebhookGiveUpAfter, err = duration("MSGSVC_WEBHOOK_GIVE_UP_AFTER", "72h"); err != nil {
		return err
	}
	if c.WebhookTimeout, err = duration("MSGSVC_WEBHOOK_TIMEOUT", "10s"); err != nil {
		return err
	}
	return nil
}

// loadLimits reads the pool (MSGSVC_DB_MAX_CONNS, MSGSVC_DB_PREPARE) and
// the request body deadline (MSGSVC_HTTP_BODY_TIMEOUT).
func (c *Config) loadLimits(get func(name, def string) string, duration func(name, def string) (time.Duration, error)) error {
	var err error
	if c.DBMaxConns, err = strconv.Atoi(get("MSGSVC_DB_MAX_CONNS", "40")); err != nil || c.DBMaxConns <= 0 {
		return fmt.Errorf("MSGSVC_DB_MAX_CONNS: %q is not a positive whole number", get("MSGSVC_DB_MAX_CONNS", "40"))
	}
	if c.DBMaxConns < minDBConns {
		// repo.Store.CheckPrepared holds its probe connection and up to
		// three more at once; a smaller pool waits for ever at start.
		return fmt.Errorf("MSGSVC_DB_MAX_CONNS: %d is too few; use at least %d (the start-up check of the connection holds %d at once)",
			c.DBMaxConns, minDBConns, minDBConns)
	}
	if c.DBPrepare, err = boolSetting(get, "MSGSVC_DB_PREPARE", "true"); err != nil {
		return err
	}
	if c.BodyTimeout, err = duration("MSGSVC_HTTP_BODY_TIMEOUT", "60s"); err != nil || c.BodyTimeout == 0 {
		return fmt.Errorf("MSGSVC_HTTP_BODY_TIMEOUT: %q is not a positive duration like 30s or 2m", get("MSGSVC_HTTP_BODY_TIMEOUT", "60s"))
	}
	return nil
}

// minDBConns is the smallest pool msgsvc starts with.
const minDBConns = 4

// minAdminToken is the shortest admin token production takes: the token
// opens every workspace's data through /graphql.
const minAdminToken = 32

// checkUnsafe refuses, in production, the switches meant for development
// and an admin token short enough to guess. The errors never show a value.
func (c *Config) checkUnsafe() error {
	switch {
	case !c.Production:
		return nil
	case c.WebhookAllowInsecure:
		return errors.New("MSGSVC_WEBHOOK_ALLOW_INSECURE: not allowed in production (it lets webhooks reach http:// URLs and local addresses); unset it")
	case c.AdminToken != "" && len(c.AdminToken) < minAdminToken:
		return fmt.Errorf("MSGSVC_ADMIN_TOKEN: too short for production; use at least %d characters (openssl rand -hex 32); the value is not shown", minAdminToken)
	}
	return nil
}

// checkPublicURL refuses to run in production without an https://
// MSGSVC_PUBLIC_URL: file, unsubscribe and widget links and Meta's webhook
// would otherwise point at the listen address.
func (c *Config) checkPublicURL(set string) error {
	switch {
	case !c.Production:
		return nil
	case set == "":
		return fmt.Errorf("MSGSVC_PUBLIC_URL: required in production: the https:// address clients reach the API at (file, unsubscribe and widget links start with it)")
	case !strings.HasPrefix(c.PublicURL, "https://"):
		return fmt.Errorf("MSGSVC_PUBLIC_URL: %q is not https://; production needs the TLS address clients reach the API at", c.PublicURL)
	}
	return nil
}

// checkSecret refuses a short MSGSVC_SECRET and, outside production, makes
// up a random one when none is given. A list (comma-separated) rotates the
// secret: the first signs, every one verifies.
func (c *Config) checkSecret(env string) error {
	if list := strings.Split(c.Secret, ","); len(list) > 1 {
		for i, s := range list {
			if list[i] = strings.TrimSpace(s); len(list[i]) < 16 {
				return fmt.Errorf("MSGSVC_SECRET: secret %d of the list: use at least 16 characters", i+1)
			}
		}
		c.Secret, c.PreviousSecrets = list[0], list[1:]
		return nil
	}
	if c.Secret == "" {
		if env == "production" {
			return fmt.Errorf("MSGSVC_SECRET: required in production (it signs cursors and file links)")
		}
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return fmt.Errorf("MSGSVC_SECRET: generate one: %w", err)
		}
		c.Secret, c.SecretGenerated = hex.EncodeToString(b), true
	} else if len(c.Secret) < 16 {
		return fmt.Errorf("MSGSVC_SECRET: use at least 16 characters")
	}
	return nil
}
