//go:build !race

package limit_test

const raceEnabled = false
