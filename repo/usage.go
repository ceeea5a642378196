package repo

import (
	"context"
	"math/rand/v2"
)

// UsageShards is how many shards a workspace's quota of one mode and month
// is taken from (usage_shards, migration 0030). Concurrent sends pick one
// at random, so two of them wait for each other one time in UsageShards.
const UsageShards = 64

// usageChunk is the most units a shard is granted at once; fewer near the
// limit (usageGrant), down to one, when every send takes the counter row.
const usageChunk = 32

// usageKey selects the rows of a workspace, mode and month ($1-$3).
const usageKey = `workspace_id = $1 AND livemode = $2 AND period = $3`

// takeFromShard takes one unit from a shard (usage_take, migration 0030) and
// reports whether it did; when it did not, the shard is not left locked.
func (q Queries) takeFromShard(ctx context.Context, workspaceID string, livemode bool, period string, shard int) (bool, error) {
	var ok bool
	return ok, q.get(ctx, &ok, `SELECT usage_take($1, $2, $3, $4)`, workspaceID, livemode, period, shard)
}

// CountMessage takes one message from a workspace's quota for the period,
// in the caller's transaction, and reports the shard it came from, or false
// when the quota is used up. Rolling the transaction back gives the message
// back.
//
// The quota stays exact without a row every send of the workspace locks: a
// send takes a unit from one shard picked at random (takeFromShard), and
// only when that shard has none left does it lock the workspace's counter
// row, which grants the shard a chunk of what the limit leaves
// (usedWithGrants). Nothing is ever granted past the limit, and no shard
// hands out more than it was granted, so concurrent sends never exceed the
// limit; near it the chunks shrink to one unit, and when nothing is left to
// grant, the units other shards still hold are taken one shard at a time
// before the send is refused.
//
// Lock order: a shard, or the counter row and then shards in shard order;
// a send holding a shard never waits for the counter row, and one
// that found its shard used up holds none (usage_take).
func (q Queries) CountMessage(ctx context.Context, workspaceID string, livemode bool, period string) (int, bool, error) {
	shard := rand.IntN(UsageShards)
	if ok, err := q.takeFromShard(ctx, workspaceID, livemode, period, shard); err != nil || ok {
		return shard, ok, err
	}
	left, limit, err := q.lockUsage(ctx, workspaceID, livemode, period)
	if err != nil {
		return 0, false, err
	}
	if left > 0 {
		return shard, true, q.grantShard(ctx, workspaceID, livemode, period, shard, usageGrant(left), limit)
	}
	var spare []int
	if err := q.selectRows(ctx, &spare, `SELECT shard FROM usage_shards WHERE `+usageKey+`
		AND used < cap ORDER BY shard`, workspaceID, livemode, period); err != nil {
		return 0, false, err
	}
	for _, s := range spare {
		if ok, err := q.takeFromShard(ctx, workspaceID, livemode, period, s); err != nil || ok {
			return s, ok, err
		}
	}
	return 0, false, nil
}

// usageGrant is how many units a shard is granted when left remain to
// grant: a share of them small enough that every shard can have one, at
// most usageChunk, at least one.
func usageGrant(left int) int {
	return max(1, min(usageChunk, left/(2*UsageShards)))
}

// lockUsage locks the counter row of a workspace, mode and month, making it
// first, and returns how many units the limit leaves to grant and the
// limit. Shards granted under another limit (it changed) are first cut
// back to what they used, so what they did not use is not spent past the
// new limit.
func (q Queries) lockUsage(ctx context.Context, workspaceID string, livemode bool, period string) (left, limit int, err error) {
	if _, err := q.exec(ctx, `INSERT INTO usage_counters (workspace_id, livemode, period, used)
		VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING`, workspaceID, livemode, period); err != nil {
		return 0, 0, err
	}
	var c struct {
		Used    int  `db:"used"`
		Granted int  `db:"granted"`
		Limit   int  `db:"messages_limit"`
		Stale   bool `db:"stale"`
	}
	if err := q.get(ctx, &c, `SELECT u.used, u.granted, w.messages_limit, EXISTS (SELECT 1 FROM usage_shards s
			WHERE s.workspace_id = $1 AND s.livemode = $2 AND s.period = $3 AND s.granted_limit <> w.messages_limit) AS stale
		FROM usage_counters u JOIN workspaces w ON w.id = u.workspace_id
		WHERE u.workspace_id = $1 AND u.livemode = $2 AND u.period = $3 FOR UPDATE OF u`,
		workspaceID, livemode, period); err != nil {
		return 0, 0, err
	}
	if c.Stale {
		if c.Granted, err = q.regrant(ctx, workspaceID, livemode, period, c.Limit); err != nil {
			return 0, 0, err
		}
	}
	return c.Limit - c.Used - c.Granted, c.Limit, nil
}

// regrant cuts every shard's grant back to what it used, under a new limit,
// and returns what the counter row has granted since.
func (q Queries) regrant(ctx context.Context, workspaceID string, livemode bool, period string, limit int) (int, error) {
	var shards []int
	if err := q.selectRows(ctx, &shards, `SELECT shard FROM usage_shards WHERE `+usageKey+`
		ORDER BY shard FOR UPDATE`, workspaceID, livemode, period); err != nil {
		return 0, err
	}
	if _, err := q.exec(ctx, `UPDATE usage_shards SET cap = used, granted_limit = $4 WHERE `+usageKey,
		workspaceID, livemode, period, limit); err != nil {
		return 0, err
	}
	var granted int
	return granted, q.get(ctx, &granted, `UPDATE usage_counters SET granted = (SELECT coalesce(sum(used), 0)
		FROM usage_shards WHERE `+usageKey+`) WHERE `+usageKey+` RETURNING granted`, workspaceID, livemode, period)
}

// grantShard grants a shard n more units, under the counter row's lock, and
// takes one of them.
func (q Queries) grantShard(ctx context.Context, workspaceID string, livemode bool, period string, shard, n, limit int) error {
	if _, err := q.exec(ctx, `UPDATE usage_counters SET granted = granted + $4 WHERE `+usageKey,
		workspaceID, livemode, period, n); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO usage_shards (workspace_id, livemode, period, shard, used, cap, granted_limit)
		VALUES ($1, $2, $3, $4, 1, $5, $6) ON CONFLICT (workspace_id, livemode, period, shard)
		DO UPDATE SET used = usage_shards.used + 1, cap = usage_shards.cap + $5`,
		workspaceID, livemode, period, shard, n, limit)
	return err
}

// UncountMessage gives back one message of a workspace's quota for a period
// (a reserved send the provider refused) to the shard it was taken from.
func (q Queries) UncountMessage(ctx context.Context, workspaceID string, livemode bool, period string, shard int) error {
	n, err := q.exec(ctx, `UPDATE usage_shards SET used = used - 1 WHERE `+usageKey+` AND shard = $4 AND used > 0`,
		workspaceID, livemode, period, shard)
	if err != nil || n == 1 {
		return err
	}
	// Counted on the counter row itself, before the quota had shards.
	_, err = q.exec(ctx, `UPDATE usage_counters SET used = greatest(used - 1, 0) WHERE `+usageKey,
		workspaceID, livemode, period)
	return err
}

// MessagesUsed returns the quota used by a workspace, mode and month: the
// counter row's own count and its shards'.
func (q Queries) MessagesUsed(ctx context.Context, workspaceID string, livemode bool, period string) (int, error) {
	var used int
	err := q.get(ctx, &used, `SELECT coalesce((SELECT used FROM usage_counters WHERE `+usageKey+`), 0)
		+ coalesce((SELECT sum(used) FROM usage_shards WHERE `+usageKey+`), 0)`, workspaceID, livemode, period)
	return used, err
}
