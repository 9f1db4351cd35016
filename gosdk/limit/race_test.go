//go:build race

package limit_test

// raceEnabled: the race detector keeps shadow memory for every allocation,
// so the heap measurements of the memory tests run only without it (in
// .ci/run's allocation step).
const raceEnabled = true
