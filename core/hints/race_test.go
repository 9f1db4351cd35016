//go:build race

package hints_test

// raceEnabled: the race detector changes what escapes, so allocation
// counts are checked only without it.
const raceEnabled = true
