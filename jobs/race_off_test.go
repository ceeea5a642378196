//go:build !race

package jobs_test

// lagBound is the p99 delivery lag the ordering test allows (issue 15).
const lagBound = 1e9
