//go:build race

package otel_test

// raceEnabled: escape analysis and sync.Pool differ under the race
// detector, so exact allocation counts are only asserted without it.
const raceEnabled = true
