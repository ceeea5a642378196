package send

import (
	"context"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// UsageStore reads a workspace's quota and what it used; repo.Store is one.
type UsageStore interface {
	Workspace(ctx context.Context, id string) (*repo.Workspace, error)
	MessagesUsed(ctx context.Context, workspaceID string, livemode bool, period string) (int, error)
}

// Usage is the caller's message quota of the current period.
type Usage struct {
	Store UsageStore
	Clock clock.Clock
}

// Current counts the messages of the caller's mode sent this calendar
// month (UTC) against the workspace's limit; the count resets on the
// first of the next month.
func (u *Usage) Current(ctx context.Context) (*model.Usage, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := u.Store.Workspace(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	now := u.Clock.Now()
	used, err := u.Store.MessagesUsed(ctx, a.WorkspaceID, a.Livemode, Period(now))
	if err != nil {
		return nil, err
	}
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return &model.Usage{Period: Period(now), MessagesUsed: used, MessagesLimit: ws.MessagesLimit,
		ResetsAt: model.NewTimestamp(first.AddDate(0, 1, 0))}, nil
}
