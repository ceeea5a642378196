// Package metahook processes the webhooks Meta posts to /hooks/meta: the handler stores each signed payload as it arrived
// (Accept) and a job processes it (Process), so a crash loses nothing and
// Meta's retries create nothing twice (inbound messages dedupe on the
// wamid, statuses only move forward). WhatsApp events are handled here;
// Instagram events go, with the account entry[].id names, to an
// InstagramHandler (graph/instagram).
package metahook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what processing reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	InsertProviderHook(ctx context.Context, h *repo.ProviderHook) error
	ProviderHook(ctx context.Context, id string) (*repo.ProviderHook, error)
	PendingProviderHooks(ctx context.Context, before time.Time, limit int) ([]string, error)
	PendingPredecessors(ctx context.Context, h *repo.ProviderHook, limit int) ([]string, error)
	FinishProviderHook(ctx context.Context, id string, at time.Time, lastErr string) error
	GiveUpProviderHook(ctx context.Context, id string, at time.Time, lastErr string) error
	AccountProvidersByKey(ctx context.Context, channel, key string) ([]repo.AccountProvider, error)
	AccountProviders(ctx context.Context, channel string) ([]repo.AccountProvider, error)
	Account(ctx context.Context, workspaceID, channel, id string) (*repo.Account, error)
	WhatsAppSending(ctx context.Context, phoneNumberID string) (bool, error)
	ProviderMessageOn(ctx context.Context, s repo.Scope, accountID, channel, providerID string) (*repo.ProviderMessage, error)
	StoredMedia(ctx context.Context, s repo.Scope, mediaID string) (*repo.File, error)
}

// Queue runs Process for a stored hook soon; jobs.Client is one.
type Queue interface {
	MetaHookStored(ctx context.Context, hookID string) error
}

// WhatsApp is what processing needs of the WhatsApp adapter.
type WhatsApp interface {
	DownloadMedia(ctx context.Context, creds *channels.Credentials, mediaID, want string) (*whatsapp.Media, error)
	SyncTemplates(ctx context.Context, creds *channels.Credentials) (*whatsapp.Sync, error)
}

// InstagramHandler processes an Instagram event of one account, the one
// its entry[].id routed it to (graph/instagram.Service is one).
type InstagramHandler interface {
	HandleInstagram(ctx context.Context, acc *repo.Account, creds *channels.Credentials, ev meta.Event) error
}

// Service stores and processes Meta webhooks.
type Service struct {
	Store     Store
	Clock     clock.Clock
	Events    event.Recorder
	Inbound   *inbound.Service
	Vault     credentials.Vault
	WhatsApp  WhatsApp
	Instagram InstagramHandler
	Queue     Queue
	// EarlyStatusWait is how long a status of a wamid none of our messages
	// has is processed again before it is dropped (DefaultEarlyStatusWait
	// when 0); see status.
	EarlyStatusWait time.Duration
}

// Accept stores a signed payload durably and queues its processing; the
// caller answers 200 once it returns nil.
func (s *Service) Accept(ctx context.Context, raw []byte) (string, error) {
	now := s.Clock.Now()
	h := &repo.ProviderHook{ID: repo.NewID("hook_", now), Source: "meta", Payload: raw, ReceivedAt: now}
	if p, err := meta.ParseWebhook(raw); err == nil {
		h.OrderKeys, h.SentAt = orderKeys(p), firstSent(p)
	}
	if err := s.Store.InsertProviderHook(ctx, h); err != nil {
		return "", fmt.Errorf("metahook: store: %w", err)
	}
	if s.Queue != nil {
		if err := s.Queue.MetaHookStored(context.WithoutCancel(ctx), h.ID); err != nil {
			slog.Warn("meta hook stored but not queued; the sweep picks it up", "hook_id", h.ID, "err", err)
		}
	}
	return h.ID, nil
}

// hookGrace is how long a stored hook waits for its job before the sweep
// queues it again.
const hookGrace = 10 * time.Second

// SweepHooks processes stored hooks whose job was lost.
// One hook that fails again (a status waiting for its send's confirm)
// does not hold up the others.
func (s *Service) SweepHooks(ctx context.Context) error {
	ids, err := s.Store.PendingProviderHooks(ctx, s.Clock.Now().Add(-hookGrace), 50)
	for _, id := range ids {
		err = errors.Join(err, s.Process(ctx, id))
	}
	return err
}

// Process handles one stored hook once, after the earlier pending hooks of
// its customers (order.go): a processed hook is skipped, a failed one is
// retried by its job or the sweep. A payload that does not parse is marked
// processed (logged): retrying cannot fix it.
func (s *Service) Process(ctx context.Context, hookID string) error {
	h, err := s.Store.ProviderHook(ctx, hookID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil || h.ProcessedAt != nil {
		return err
	}
	unlock, waited := lockKeys(h.OrderKeys)
	defer unlock()
	if err := s.catchUp(ctx, h); err != nil {
		return err
	}
	if waited {
		// Another processing of the same customers ran meanwhile: it may
		// have been this hook's.
		return s.processLocked(ctx, hookID)
	}
	return s.processHook(ctx, h)
}

// processLocked reads and handles one stored hook, its customers' stripes
// held.
func (s *Service) processLocked(ctx context.Context, hookID string) error {
	h, err := s.Store.ProviderHook(ctx, hookID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil || h.ProcessedAt != nil {
		return err
	}
	return s.processHook(ctx, h)
}

// processHook handles one unprocessed hook.
func (s *Service) processHook(ctx context.Context, h *repo.ProviderHook) error {
	hookID := h.ID
	p, err := meta.ParseWebhook(withoutNUL(h.Payload))
	if err != nil {
		slog.Warn("meta hook does not parse; dropped", "hook_id", hookID, "err", err)
		return s.Store.FinishProviderHook(ctx, hookID, s.Clock.Now(), "")
	}
	if len(p.Ignored) > 0 {
		slog.Info("meta hook: parts not processed", "hook_id", hookID, "ignored", p.Ignored)
	}
	failed := s.handleAll(ctx, h, inSentOrder(p.Events))
	lastErr := ""
	if failed != nil {
		lastErr = failed.Error()
	}
	hard := failed != nil && !onlyEarly(failed)
	giveUp := hard && h.Attempts+1 >= MaxHookAttempts
	if hard {
		metrics.ObserveProviderHookFailed("meta", ReasonClass(failed), giveUp)
	}
	if giveUp {
		// A hook that fails again and again (not a status waiting for its
		// send) would hold up its customer's later hooks for ever.
		slog.Error("meta hook given up after too many failed attempts; its events are not processed",
			"hook_id", hookID, "attempts", h.Attempts+1, "reason", ReasonClass(failed), "err", failed)
		return s.Store.GiveUpProviderHook(ctx, hookID, s.Clock.Now(), lastErr)
	}
	if err := s.Store.FinishProviderHook(ctx, hookID, s.Clock.Now(), lastErr); err != nil {
		return err
	}
	return failed
}

// MaxHookAttempts is how many failed attempts a stored hook gets before it
// is given up (marked processed with its last error, logged as an error).
const MaxHookAttempts = 50

// handle routes one event.
func (s *Service) handle(ctx context.Context, h *repo.ProviderHook, ev meta.Event) error {
	switch e := ev.(type) {
	case *meta.WhatsAppMessage:
		return s.eachAccount(ctx, e.PhoneNumberID, func(t target) error { return s.message(ctx, t, e) })
	case *meta.WhatsAppStatus:
		return s.status(ctx, e, h.ReceivedAt)
	case *meta.WhatsAppUserPreference:
		return s.eachAccount(ctx, e.PhoneNumberID, func(t target) error { return s.preference(ctx, t, e) })
	case *meta.WhatsAppTemplateStatus:
		return s.templateStatus(ctx, e)
	case *meta.WhatsAppValueErrors:
		slog.Warn("meta hook: WhatsApp reports errors", "route", e.RouteID(), "field", e.Field, "errors", e.Reasons())
		return nil
	case *meta.WhatsAppAccountUpdate:
		slog.Info("meta hook: WhatsApp account update", "waba_id", e.WABAID, "field", e.Field, "event", e.Event)
		return nil
	}
	if ev.Channel() == "instagram" {
		if s.Instagram == nil {
			slog.Info("meta hook: Instagram event not processed (no Instagram handler)", "route", ev.RouteID())
			return nil
		}
		return s.eachInstagramAccount(ctx, ev.RouteID(), func(t target) error {
			return s.Instagram.HandleInstagram(ctx, t.acc, t.creds, ev)
		})
	}
	slog.Info("meta hook: event not processed", "channel", ev.Channel(), "route", ev.RouteID())
	return nil
}

// target is an account an event belongs to, with its credentials.
type target struct {
	acc   *repo.Account
	creds *channels.Credentials
}

// eachAccount runs fn for every connected account whose provider id is
// key; unknown ids are logged and ignored.
func (s *Service) eachAccount(ctx context.Context, key string, fn func(target) error) error {
	rows, err := s.Store.AccountProvidersByKey(ctx, "whatsapp", key)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		slog.Info("meta hook: no account has this phone_number_id; ignored", "phone_number_id", key)
	}
	return s.forRows(ctx, "whatsapp", rows, nil, fn)
}

// forRows runs fn for each account of rows whose credentials open and, when
// keep is set, satisfy it.
func (s *Service) forRows(ctx context.Context, channel string, rows []repo.AccountProvider, keep func(*channels.Credentials) bool, fn func(target) error) error {
	var errs error
	for i := range rows {
		creds, err := s.Vault.Open(&rows[i])
		if err != nil {
			errs = errors.Join(errs, err)
			continue
		}
		if keep != nil && !keep(creds) {
			continue
		}
		acc, err := s.Store.Account(ctx, rows[i].WorkspaceID, channel, rows[i].AccountID)
		if err != nil {
			errs = errors.Join(errs, err)
			continue
		}
		errs = errors.Join(errs, fn(target{acc: acc, creds: creds}))
	}
	return errs
}
