//go:build race

package limit_test

// raceEnabled: escape analysis differs under the race detector, so exact
// allocation counts are only asserted without it.
const raceEnabled = true
