//go:build !race

package hints_test

const raceEnabled = false
