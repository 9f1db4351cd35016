//go:build !race

package str_test

const raceEnabled = false
