package requestlog_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/requestlog"
	"github.com/msgsvc/msgsvc/repo"
)

// purges records the cutoffs the service's purge asks for.
type purges struct {
	before, forgetBefore []time.Time
}

func (p *purges) RequestLogs(context.Context, repo.Scope, repo.RequestLogFilter, repo.Page) ([]repo.RequestLog, error) {
	return nil, nil
}

func (p *purges) PurgeRequestLogs(_ context.Context, before time.Time, _ int) (int64, error) {
	p.before = append(p.before, before)
	return 0, nil
}

func (p *purges) PurgeDeletedConversationLogs(_ context.Context, forgetBefore time.Time) (int64, error) {
	p.forgetBefore = append(p.forgetBefore, forgetBefore)
	return 0, nil
}

// The purge deletes the rows past the retention period and the rows of
// deleted conversations, whose ids it keeps for Straggling after their
// deletion: longer than a row waits in a batch.
func TestPurgeExpiredCutoffs(t *testing.T) {
	var p purges
	s := &requestlog.Service{Store: &p, Clock: func() time.Time { return t0 }, Retention: 30 * 24 * time.Hour}
	if err := s.PurgeExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(p.before) != 1 || !p.before[0].Equal(t0.Add(-30*24*time.Hour)) {
		t.Errorf("rows purged before %v, want %v", p.before, t0.Add(-30*24*time.Hour))
	}
	if len(p.forgetBefore) != 1 || !p.forgetBefore[0].Equal(t0.Add(-10*time.Minute)) {
		t.Errorf("deleted conversations forgotten before %v, want 10 minutes before now", p.forgetBefore)
	}
	if requestlog.Straggling <= requestlog.DefaultFlush+requestlog.FinalFlush {
		t.Errorf("Straggling %v is no longer than a row may wait in a batch (a flush, then the final flush at a stop)", requestlog.Straggling)
	}
}
