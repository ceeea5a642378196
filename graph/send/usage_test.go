package send_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/repo"
)

// usageStore answers one workspace's limit and counts per mode and period.
type usageStore struct {
	limit int
	used  map[string]int // "live 2026-12" → messages
	asked []string
}

func (s *usageStore) Workspace(_ context.Context, id string) (*repo.Workspace, error) {
	return &repo.Workspace{ID: id, MessagesLimit: s.limit}, nil
}

func (s *usageStore) MessagesUsed(_ context.Context, workspaceID string, livemode bool, period string) (int, error) {
	key := "test " + period
	if livemode {
		key = "live " + period
	}
	s.asked = append(s.asked, workspaceID+" "+key)
	return s.used[key], nil
}

// The quota counts the caller's mode in the current UTC month and resets
// on the first of the next one, across a year's end too.
func TestUsageCountsTheCallersMonth(t *testing.T) {
	cases := []struct {
		now              time.Time
		livemode         bool
		period, resetsAt string
		used             int
	}{
		{time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC), true, "2026-12", "2027-01-01T00:00:00.000Z", 7},
		{time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC), false, "2026-12", "2027-01-01T00:00:00.000Z", 2},
		// 23:30 on Jan 31 in New York is already February in UTC.
		{time.Date(2027, 1, 31, 23, 30, 0, 0, time.FixedZone("EST", -5*3600)), true, "2027-02", "2027-03-01T00:00:00.000Z", 0},
	}
	for _, c := range cases {
		store := &usageStore{limit: 1000, used: map[string]int{"live 2026-12": 7, "test 2026-12": 2}}
		u := &send.Usage{Store: store, Clock: func() time.Time { return c.now }}
		ctx := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_1", Livemode: c.livemode})
		got, err := u.Current(ctx)
		if err != nil {
			t.Fatalf("%v: %v", c.now, err)
		}
		if got.Period != c.period {
			t.Errorf("%v: period %q, want %q", c.now, got.Period, c.period)
		}
		if got.MessagesUsed != c.used {
			t.Errorf("%v livemode=%v: used %d, want %d (asked %v)", c.now, c.livemode, got.MessagesUsed, c.used, store.asked)
		}
		if got.MessagesLimit != 1000 {
			t.Errorf("%v: limit %d, want the workspace's 1000", c.now, got.MessagesLimit)
		}
		if s := got.ResetsAt.String(); s != c.resetsAt {
			t.Errorf("%v: resets at %s, want %s", c.now, s, c.resetsAt)
		}
	}
}

// Without a caller there is no usage to read.
func TestUsageNeedsACaller(t *testing.T) {
	u := &send.Usage{Store: &usageStore{}}
	if _, err := u.Current(context.Background()); err == nil {
		t.Error("usage read with no caller")
	}
}
