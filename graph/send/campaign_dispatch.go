package send

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// dispatch calls the messages whose slots have come: a call slot taken
// for each (at most cap(sem) calls at once), each opened, then all marked
// called in one commit and each called at once on its own goroutine; those
// that must wait are deferred in Postgres. Marking after the reads keeps
// what a worker killed in a pass leaves never called (repo.MarkCalled is
// never undone by another worker) to the messages between its mark and its
// calls, not those it was still opening.
func (c *Campaign) dispatch(ctx context.Context, l *lane, now time.Time, sem chan struct{}, results chan done, inflight *int, creds *credsCache) error {
	call, wait := l.pick(now)
	if err := c.deferAll(ctx, wait); err != nil {
		return err
	}
	opened, failed := make([]*OpenedQueued, len(call)), make([]bool, len(call))
	slots := 0
	var reads sync.WaitGroup
take:
	for i := range call {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break take // stopping: the rest stay queued
		}
		slots++
		cr := creds.of(ctx, c.Sends, call[i], now)
		reads.Go(func() {
			var err error
			if opened[i], err = c.Sends.OpenQueued(ctx, &call[i], cr); err != nil && ctx.Err() == nil {
				failed[i] = true
				slog.Warn("send: queued message not opened; tried again in a second", "message_id", call[i].MessageID, "err", err)
			}
		})
	}
	reads.Wait()
	var ids []string
	for i := range slots {
		if opened[i] != nil {
			ids = append(ids, call[i].MessageID)
		}
	}
	var moved []string
	var err error
	if len(ids) > 0 {
		moved, err = c.Store.MarkCalled(ctx, ids, c.Owner, now)
	}
	if err != nil {
		for range slots {
			<-sem
		}
		for _, m := range call {
			l.apply(m, QueuedOutcome{}, now)
		}
		return err
	}
	took := make(map[string]bool, len(moved))
	for _, id := range moved {
		took[id] = true
	}
	var retry []string
	for i, m := range call {
		if i >= slots || !took[m.MessageID] {
			if i < slots {
				<-sem
				if failed[i] {
					retry = append(retry, m.MessageID) // not opened: a second later
				}
			}
			l.apply(m, QueuedOutcome{}, now) // not called now: stopping, another pacer's, or settled meanwhile
			continue
		}
		*inflight++
		go func(m repo.QueuedSend, o *OpenedQueued) {
			out := c.Sends.SendOpened(context.WithoutCancel(ctx), &m, o)
			<-sem
			results <- done{claim: m, out: out}
		}(m, opened[i])
	}
	if len(retry) > 0 {
		return c.Store.DeferQueued(ctx, retry, now.Add(time.Second))
	}
	return nil
}

// deferAll moves messages that must wait to their due times.
func (c *Campaign) deferAll(ctx context.Context, wait map[string]time.Time) error {
	byTime := map[time.Time][]string{}
	for id, at := range wait {
		byTime[at] = append(byTime[at], id)
	}
	for at, ids := range byTime {
		if err := c.Store.DeferQueued(ctx, ids, at); err != nil {
			return err
		}
	}
	return nil
}
