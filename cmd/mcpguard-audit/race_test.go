//go:build race

package main

// raceEnabled: the race detector is on (its shadow memory distorts heap figures).
const raceEnabled = true
