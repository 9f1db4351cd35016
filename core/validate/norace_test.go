//go:build !race

package validate_test

const raceEnabled = false
