//go:build race

package calllog_test

// raceEnabled: the race detector changes what escapes, so allocation
// counts are checked only without it.
const raceEnabled = true
