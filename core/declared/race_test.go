//go:build race

package declared_test

// raceEnabled: the race detector changes what escapes, so allocation
// counts are checked only without it (CI runs them so).
const raceEnabled = true
