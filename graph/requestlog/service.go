package requestlog

import (
	"context"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store reads and purges the log; repo.Store is one.
type Store interface {
	RequestLogs(ctx context.Context, s repo.Scope, f repo.RequestLogFilter, p repo.Page) ([]repo.RequestLog, error)
	PurgeRequestLogs(ctx context.Context, before time.Time, limit int) (int64, error)
	PurgeDeletedConversationLogs(ctx context.Context, forgetBefore time.Time) (int64, error)
}

// Straggling is how long a row of a deleted conversation may still reach
// the log after the deletion: the rows waiting in an API process's buffer
// are written within a second (DefaultFlush), or FinalFlush more at its
// stop. The purge looks for such rows this long after each deletion.
const Straggling = 10 * time.Minute

// Service lists the request log to the portal and purges it.
type Service struct {
	Store   Store
	Clock   clock.Clock
	Cursors cursor.Signer
	// Retention is how long rows are kept: the webhooks' (events and
	// deliveries) retention period.
	Retention time.Duration
}

const listName = "request_logs"

// List is the caller's mode's log, newest first, filtered.
func (s *Service) List(ctx context.Context, filter *model.RequestLogFilter, limit *int, after *string) (*model.RequestLogPage, error) {
	a, err := auth.ForField(ctx, "requestLogs")
	if err != nil {
		return nil, err
	}
	page, err := s.Cursors.Page(listName, limit, after)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.RequestLogs(ctx, repo.Scope{WorkspaceID: a.WorkspaceID, Livemode: a.Livemode}, toFilter(filter), page)
	if err != nil {
		return nil, fmt.Errorf("requestlog: list: %w", err)
	}
	rows, more, next := cursor.Trim(s.Cursors, listName, rows, page, func(l repo.RequestLog) repo.Position {
		return repo.Position{At: l.CreatedAt, ID: l.RequestID}
	})
	out := &model.RequestLogPage{Items: make([]*model.RequestLog, len(rows)), HasMore: more, NextCursor: next}
	for i, l := range rows {
		name, last4 := deref(l.KeyName), deref(l.KeySecretLast4)
		hint := "svc_test_…" + last4
		if l.Livemode {
			hint = "svc_live_…" + last4
		}
		out.Items[i] = &model.RequestLog{RequestID: l.RequestID, CreatedAt: model.NewTimestamp(l.CreatedAt), KeyID: l.KeyID,
			KeyName: name, KeyHint: hint, Method: l.Method, Path: l.Path, Status: l.Status, ErrorCode: l.ErrorCode,
			LatencyMs: l.LatencyMS, ConversationID: l.ConversationID}
	}
	return out, nil
}

func toFilter(f *model.RequestLogFilter) repo.RequestLogFilter {
	var out repo.RequestLogFilter
	if f == nil {
		return out
	}
	out.KeyID, out.Path, out.ErrorCode, out.RequestID = deref(f.KeyID), deref(f.Path), deref(f.ErrorCode), deref(f.RequestID)
	if f.Status != nil {
		out.Status = *f.Status
	}
	if f.From != nil {
		out.From = &f.From.Time
	}
	if f.To != nil {
		out.To = &f.To.Time
	}
	return out
}

// PurgeExpired deletes the rows older than the retention period, in
// batches of 1000, and the rows of conversations deleted (written after
// the deletion from a batch that held them).
func (s *Service) PurgeExpired(ctx context.Context) error {
	now := s.Clock.Now()
	if _, err := s.Store.PurgeDeletedConversationLogs(ctx, now.Add(-Straggling)); err != nil {
		return err
	}
	before := now.Add(-s.Retention)
	for {
		n, err := s.Store.PurgeRequestLogs(ctx, before, 1000)
		if err != nil || n < 1000 {
			return err
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
