//go:build race

package str_test

// raceEnabled: the race detector changes what escapes, so allocation
// counts are checked only without it.
const raceEnabled = true
