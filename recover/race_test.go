//go:build race

package recover_test

// raceEnabled: under the race detector sync.Pool drops items at random,
// so encoding/json's allocation count varies from run to run; exact
// counts are only asserted without it.
const raceEnabled = true
