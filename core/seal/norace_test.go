//go:build !race

package seal_test

const raceEnabled = false
