package send

import (
	"context"
	"fmt"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// MaxBatch is the most sends one batch takes (POST /v1/messages/batch).
const MaxBatch = 1000

// NewBatch stores a batch of total sends of the caller and returns its id;
// its items are then sent with Request.Async and Request.BatchID.
func (s *Service) NewBatch(ctx context.Context, total int) (string, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return "", err
	}
	if total < 1 || total > MaxBatch {
		return "", apierr.New(apierr.InvalidRequest, "messages must hold 1 to %d sends; got %d.", MaxBatch, total)
	}
	now := s.Clock.Now()
	b := &repo.MessageBatch{ID: repo.NewID("batch_", now), WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		Total: total, CreatedAt: now}
	err = s.Store.InTx(ctx, func(q repo.Queries) error { return q.InsertMessageBatch(ctx, b) })
	return b.ID, err
}

// CloseBatch records how many items of a batch were answered with an
// error.
func (s *Service) CloseBatch(ctx context.Context, id string, refused int) error {
	a, err := auth.From(ctx)
	if err != nil {
		return err
	}
	return s.Store.InTx(ctx, func(q repo.Queries) error { return q.SetBatchRefused(ctx, a.WorkspaceID, id, refused) })
}

// MessageBatch is a batch of the caller's workspace and mode with its
// progress: its messages counted by their status now.
func (s *Service) MessageBatch(ctx context.Context, id string) (*model.MessageBatch, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var b *repo.MessageBatch
	var counts map[string]map[string]int
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		scope := repo.Scope{WorkspaceID: a.WorkspaceID, Livemode: a.Livemode}
		if b, err = q.MessageBatchOf(ctx, scope, id); err != nil {
			return view.NotFound(err, apierr.BatchNotFound, "message batch", id)
		}
		counts, err = q.BatchesStatusCounts(ctx, scope, []string{id})
		return err
	})
	if err != nil {
		return nil, err
	}
	return batchView(b, counts[id]), nil
}

const batchList = "message_batches"

// MessageBatches lists the batches of the member's workspace and mode,
// newest first, each with its progress (the developer portal's Batches).
func (s *Service) MessageBatches(ctx context.Context, limit *int, after *string) (*model.MessageBatchPage, error) {
	a, err := auth.ForField(ctx, "messageBatches")
	if err != nil {
		return nil, err
	}
	page, err := s.Cursors.Page(batchList, limit, after)
	if err != nil {
		return nil, err
	}
	scope := repo.Scope{WorkspaceID: a.WorkspaceID, Livemode: a.Livemode}
	out := &model.MessageBatchPage{Items: []*model.MessageBatch{}}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		rows, err := q.MessageBatches(ctx, scope, page)
		if err != nil {
			return err
		}
		rows, out.HasMore, out.NextCursor = cursor.Trim(s.Cursors, batchList, rows, page, func(b repo.MessageBatch) repo.Position {
			return repo.Position{At: b.CreatedAt, ID: b.ID}
		})
		ids := make([]string, len(rows))
		for i, b := range rows {
			ids[i] = b.ID
		}
		counts, err := q.BatchesStatusCounts(ctx, scope, ids)
		for i := range rows {
			out.Items = append(out.Items, batchView(&rows[i], counts[rows[i].ID]))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("send: list batches: %w", err)
	}
	return out, nil
}

// batchView is a batch as the API shows it, with its messages' counts by
// status (nil: it has none).
func batchView(b *repo.MessageBatch, counts map[string]int) *model.MessageBatch {
	c := model.MessageBatchCounts{Queued: counts["queued"], Sending: counts["sending"], Sent: counts["sent"],
		Delivered: counts["delivered"], Read: counts["read"], Failed: counts["failed"]}
	return &model.MessageBatch{ID: b.ID, Object: "message_batch", Total: b.Total, Refused: b.Refused, Counts: c,
		Done: c.Queued == 0 && c.Sending == 0, CreatedAt: model.NewTimestamp(b.CreatedAt)}
}
