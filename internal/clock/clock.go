// Package clock is the injected time source of the domain packages, so 24-hour
// windows, key grace periods and retry schedules are testable in milliseconds.
package clock

import "time"

// Clock returns the current time; nil means the wall clock.
type Clock func() time.Time

// Now is the current time in UTC at the millisecond precision the contract
// shows.
func (c Clock) Now() time.Time {
	if c == nil {
		c = time.Now
	}
	return c().UTC().Truncate(time.Millisecond)
}
