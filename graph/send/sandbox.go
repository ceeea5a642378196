package send

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// simulateFailed in a sandbox message's text makes its delivery fail.
const simulateFailed = "simulate:failed"

// FinishSandboxDelivery is the second step of a sandbox send (decisions 4):
// a message still sent becomes delivered, or failed with simulated_failure
// when its text asks for it, and message.status is recorded. It re-reads the
// message under a lock, so a second run, or a run after the message is gone,
// does nothing.
func (r *Service) FinishSandboxDelivery(ctx context.Context, workspaceID, messageID string) error {
	s := repo.Scope{WorkspaceID: workspaceID, Livemode: false}
	changed := false
	err := r.Store.InTx(ctx, func(q repo.Queries) error {
		// Lock the conversation as every writer of its events does, so its
		// events are recorded, and delivered, in order. One statement locks
		// the message and then the conversation, the order the two
		// statements it replaces took, so no lock order changes; a run that
		// finds the message settled already now holds the conversation too,
		// until its empty commit.
		m, conv, err := q.LockMessageInConversation(ctx, s, messageID)
		if errors.Is(err, repo.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if m.Direction != "outbound" || m.Status != "sent" {
			return nil
		}
		var d model.Delivery
		if len(m.Delivery) > 0 {
			if err := json.Unmarshal(m.Delivery, &d); err != nil {
				return err
			}
		}
		at := model.NewTimestamp(r.Clock.Now())
		if strings.Contains(deref(m.Text), simulateFailed) || strings.Contains(deref(m.HTMLRaw), simulateFailed) {
			m.Status, d.FailedAt = "failed", &at
			d.Error = &model.DeliveryError{Code: "simulated_failure", Message: "The sandbox failed this message because its text contains " + simulateFailed + "."}
		} else {
			m.Status, d.DeliveredAt = "delivered", &at
		}
		if m.Delivery, err = json.Marshal(d); err != nil {
			return err
		}
		if err := q.UpdateMessageDelivery(ctx, m); err != nil {
			return err
		}
		changed = true
		return r.recordStatus(ctx, q, s, conv, m)
	})
	if err == nil && changed {
		r.Events.Committed(ctx)
	}
	return err
}

// sandboxSweepGrace is how long past its due time a sandbox message may stay
// sent before the sweep completes it itself.
const sandboxSweepGrace = 10 * time.Second

// SweepSandboxDeliveries completes sandbox messages whose delivered/failed
// task was lost (Redis flushed, enqueue failed after commit): Postgres is the
// source of truth, and completing twice does nothing.
func (r *Service) SweepSandboxDeliveries(ctx context.Context, delay time.Duration) error {
	stale, err := r.Store.StaleSandboxMessages(ctx, r.Clock.Now().Add(-delay-sandboxSweepGrace), 100)
	for _, m := range stale {
		if err := r.FinishSandboxDelivery(ctx, m.WorkspaceID, m.ID); err != nil {
			return err
		}
	}
	return err
}
