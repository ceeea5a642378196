package main

import (
	"fmt"
	"time"
)

// SweepConfig is how the sweeps that catch up lost tasks run.
type SweepConfig struct {
	// Grace is how long a due webhook delivery may wait for its task
	// before the sweep hands it to the queue again (MSGSVC_SWEEP_GRACE).
	Grace time.Duration
	// Every is how often the sweeps run (MSGSVC_SWEEP_EVERY).
	Every time.Duration
}

// loadSweep reads MSGSVC_SWEEP_GRACE (default 30s, 0 allowed: hand over as
// soon as due) and MSGSVC_SWEEP_EVERY (default 2s, from 100ms to 1h).
func loadSweep(get func(name, def string) string) (SweepConfig, error) {
	var c SweepConfig
	for _, d := range []struct {
		name, def string
		min, max  time.Duration
		into      *time.Duration
	}{
		{"MSGSVC_SWEEP_GRACE", "30s", 0, 24 * time.Hour, &c.Grace},
		{"MSGSVC_SWEEP_EVERY", "2s", 100 * time.Millisecond, time.Hour, &c.Every},
	} {
		v, err := time.ParseDuration(get(d.name, d.def))
		if err != nil || v < d.min || v > d.max {
			return c, fmt.Errorf("%s: %q is not a duration from %s to %s", d.name, get(d.name, d.def), d.min, d.max)
		}
		*d.into = v
	}
	return c, nil
}
