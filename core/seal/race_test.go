//go:build race

package seal_test

// raceEnabled: sync.Pool drops items at random under the race detector,
// so the allocation counts are checked without it.
const raceEnabled = true
