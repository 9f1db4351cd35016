//go:build race

package redisstore_test

const raceEnabled = true
