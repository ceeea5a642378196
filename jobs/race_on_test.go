//go:build race

package jobs_test

// lagBound is the p99 delivery lag the ordering test allows. The race
// detector slows the code 2-20 times, on a machine the suite shares; the
// bound still lies far below the sweep's grace, which a missed wake-up
// would wait for.
const lagBound = 3e9
