//go:build !race

package recover_test

const raceEnabled = false
