package jobs

import (
	"context"
	"time"
)

// CampaignEvery is how often a worker looks for pace keys with queued
// messages that no pacer leads (send.Campaign.Pass).
const CampaignEvery = 500 * time.Millisecond

// Campaigner is a worker's pacer of queued messages; *send.Campaign is one.
type Campaigner interface {
	// Pass starts leading every pace key with due queued messages that no
	// other process leads.
	Pass(ctx context.Context) error
	// Wait returns once every lane it leads has ended.
	Wait()
}

// RunCampaigns runs the pacer every CampaignEvery until ctx ends, then
// waits for the calls in flight to settle. Every worker runs it; a lease
// per pace key in Postgres lets one of them lead each key at a time.
func RunCampaigns(ctx context.Context, c Campaigner) {
	runEvery(ctx, CampaignEvery, "campaign pacer", c.Pass)
	c.Wait()
}
