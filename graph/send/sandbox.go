package send

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// simulateFailed in a sandbox message's text makes its delivery fail.
const simulateFailed = "simulate:failed"

// sandboxBatch is how many sandbox messages one transaction of
// DeliverSandbox completes at most: enough that a burst of sends costs a
// few transactions, few enough that the conversations it locks are held
// for milliseconds. (A variable only so that a test can make it small.)
var sandboxBatch = 200

// sandboxDueBy is the latest send time of a sandbox message due for its
// delivered/failed step at now: a message sent at t is due once now reaches
// t + delay, never before.
func sandboxDueBy(now time.Time, delay time.Duration) time.Time { return now.Add(-delay) }

// DeliverSandbox is the second step of sandbox sends, for
// every sandbox message due at the clock's now: each message still sent
// becomes delivered, or failed with simulated_failure when its text asks
// for it, and message.status is recorded. It works in transactions of up
// to sandboxBatch messages, the oldest first, and goes on while they come
// back full. Messages another transaction holds (another worker's pass, a
// send in the conversation) are left to the next pass, never waited for,
// so passes in several workers run side by side; a message settled already
// is not read again.
func (s *Service) DeliverSandbox(ctx context.Context, delay time.Duration) error {
	by := sandboxDueBy(s.Clock.Now(), delay)
	for {
		n, err := s.deliverSandboxBatch(ctx, by)
		if err != nil || n < sandboxBatch {
			return err
		}
	}
}

// deliverSandboxBatch completes up to sandboxBatch sandbox messages sent by
// a time, in one transaction of three statements: the due messages with
// their conversations, locked; every message's status and delivery; every
// message.status event, in the messages' order. It reports how many it
// completed, and announces their events once committed.
func (s *Service) deliverSandboxBatch(ctx context.Context, by time.Time) (int, error) {
	n := 0
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		due, err := q.LockDueSandboxMessages(ctx, by, sandboxBatch)
		if err != nil || len(due) == 0 {
			return err
		}
		at := s.Clock.Now()
		msgs, outs := make([]*repo.Message, len(due)), make([]*model.Message, len(due))
		for i := range due {
			msgs[i] = &due[i].Message
			if err := settleSandbox(msgs[i], at); err != nil {
				return err
			}
			outs[i] = view.Message(msgs[i])
		}
		s.Files.SignAttachments(outs...)
		events := make([]event.Pending, len(due))
		for i := range due {
			events[i] = event.Pending{Scope: repo.Scope{WorkspaceID: msgs[i].WorkspaceID, Livemode: msgs[i].Livemode},
				Type: event.MessageStatus, Conv: view.Conversation(&due[i].Conversation), Data: outs[i]}
		}
		if err := q.UpdateMessageDeliveries(ctx, msgs); err != nil {
			return err
		}
		n = len(due)
		return s.Events.RecordAll(ctx, q, events)
	})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		s.Events.CommittedSends(ctx)
	}
	return n, nil
}

// settleSandbox makes a sent sandbox message delivered at a time, or failed
// with simulated_failure when its text or raw HTML contains simulate:failed;
// the rest of its delivery (sent_at) is kept.
func settleSandbox(m *repo.Message, at time.Time) error {
	var d model.Delivery
	if len(m.Delivery) > 0 {
		if err := json.Unmarshal(m.Delivery, &d); err != nil {
			return err
		}
	}
	ts := model.NewTimestamp(at)
	if strings.Contains(deref(m.Text), simulateFailed) || strings.Contains(deref(m.HTMLRaw), simulateFailed) {
		m.Status, d.FailedAt = "failed", &ts
		d.Error = &model.DeliveryError{Code: "simulated_failure", Message: "The sandbox failed this message because its text contains " + simulateFailed + "."}
	} else {
		m.Status, d.DeliveredAt = "delivered", &ts
	}
	var err error
	m.Delivery, err = json.Marshal(d)
	return err
}
