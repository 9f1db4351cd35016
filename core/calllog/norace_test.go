//go:build !race

package calllog_test

const raceEnabled = false
