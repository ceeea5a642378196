package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// Tasks of the Meta channels.
const (
	// TypeMetaHook processes one stored /hooks/meta payload.
	TypeMetaHook = "meta:hook"
	// TypeTemplateSync refreshes one WhatsApp number's templates.
	TypeTemplateSync = "whatsapp:template_sync"
)

// MetaHookPayload names a stored hook; the handler re-reads it.
type MetaHookPayload struct {
	HookID string `json:"hook_id"`
}

// TemplateSyncPayload names the number to refresh.
type TemplateSyncPayload struct {
	WorkspaceID string `json:"workspace_id"`
	AccountID   string `json:"account_id"`
}

// Meta processes stored webhooks and syncs templates; metahook.Service
// is one.
type Meta interface {
	Process(ctx context.Context, hookID string) error
	SyncTemplates(ctx context.Context, workspaceID, accountID string) error
}

func (c *Client) enqueueJSON(ctx context.Context, kind, id string, payload any) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	err = c.enqueue(ctx, asynq.NewTask(kind, raw), asynq.Queue(c.Queue), asynq.TaskID(id), asynq.MaxRetry(10))
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return nil
	}
	return err
}

// MetaHookStored queues the processing of a stored webhook.
func (c *Client) MetaHookStored(ctx context.Context, hookID string) error {
	return c.enqueueJSON(ctx, TypeMetaHook, "metahook:"+hookID, MetaHookPayload{HookID: hookID})
}

// RefreshTemplates queues a template sync of one number (after a 132001).
// One waits at a time per number.
func (c *Client) RefreshTemplates(ctx context.Context, workspaceID, accountID string) error {
	return c.enqueueJSON(ctx, TypeTemplateSync, fmt.Sprintf("tplsync:%s:%s:%d", workspaceID, accountID, time.Now().Unix()/5),
		TemplateSyncPayload{WorkspaceID: workspaceID, AccountID: accountID})
}

// MetaHookHandler processes a stored hook.
func MetaHookHandler(m Meta) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p MetaHookPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		return m.Process(ctx, p.HookID)
	}
}

// TemplateSyncHandler refreshes one number's templates.
func TemplateSyncHandler(m Meta) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var p TemplateSyncPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		return m.SyncTemplates(ctx, p.WorkspaceID, p.AccountID)
	}
}

// RunTemplateSync syncs every number's templates now and then every
// interval (MSGSVC_TEMPLATE_SYNC_EVERY) until ctx ends.
func RunTemplateSync(ctx context.Context, m Meta, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := m.SyncTemplates(ctx, "", ""); err != nil && ctx.Err() == nil {
			slog.Warn("template sync", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
