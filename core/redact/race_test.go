//go:build race

package redact_test

// raceEnabled: the race detector changes what escapes, so allocation
// counts are only asserted without it.
const raceEnabled = true
