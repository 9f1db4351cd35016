//go:build !race

package declared_test

const raceEnabled = false
