package send

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/repo"
)

// Asynchronous sends (docs/api.md, Asynchronous and batch sends): a send
// made with Prefer: respond-async, and every item of a batch, runs every
// rule that needs no provider in its reserve (fields, window, template,
// opt-outs, credentials, the quota unit taken), and is stored queued with
// its claim (repo.QueuedSend) in the same transaction; the client gets 202
// with the message queued. The workers' pacer (campaign.go) sends it at its
// account's throughput: the claim moves to sending in a commit of its own
// before the provider call, so the message is called at most once, crash
// or not (dispatch.go). Unlike a synchronous send, what the reserve created
// (a contact, a conversation) is announced at once: the message exists
// from now on, and a refusal of the provider fails it rather than removing
// it (its quota unit given back).

// enqueue stores a reserved asynchronous send queued with its claim.
func (s *Service) enqueue(ctx context.Context, q repo.Queries, res *reservation, req *sendRequest, t *sendTarget, marketing bool) error {
	a, msg := res.actor, res.msg
	msg.Status = "queued"
	if err := s.store(ctx, q, a.Scope(), req, t, msg, false); err != nil {
		return err
	}
	payload, err := queuedPayload(res.ob)
	if err != nil {
		return err
	}
	claim := &repo.QueuedSend{MessageID: msg.ID, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		PaceKey: paceKeyOf(res.ob), AccountID: res.ob.Account.ID, Channel: msg.Channel, Recipient: res.ob.To,
		Marketing: marketing, Payload: payload, Period: res.period, Shard: res.shard, State: "queued",
		QueuedAt: msg.CreatedAt, NotBefore: msg.CreatedAt}
	if req.batchID != "" {
		claim.BatchID = &req.batchID
	}
	if err := q.InsertQueuedSend(ctx, claim); err != nil {
		return fmt.Errorf("send: queue: %w", err)
	}
	res.sent = view.Message(msg)
	s.Files.SignAttachments(res.sent)
	return nil
}

// queuedPayload is the outbound message as stored for the pacer: no
// credentials, no DKIM key, no file bytes and no signed links (all read
// again when it is sent).
func queuedPayload(ob *channels.Message) ([]byte, error) {
	c := *ob
	c.Account.Provider = nil
	if ob.Email != nil {
		e := *ob.Email
		e.DKIM = nil
		c.Email = &e
	}
	c.Attachments = make([]channels.File, len(ob.Attachments))
	for i, f := range ob.Attachments {
		f.Content, f.URL = nil, ""
		c.Attachments[i] = f
	}
	out, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("send: queued payload: %w", err)
	}
	return out, nil
}

// paceKeyOf is what a queued message's throughput counts: the number at
// Meta for a live WhatsApp send (paceKey), the channel's account
// otherwise; sandbox sends have keys of their own.
func paceKeyOf(ob *channels.Message) string {
	key := ob.Channel + ":" + paceKey(ob.Account)
	if !ob.Livemode {
		key = "test:" + key
	}
	return key
}
