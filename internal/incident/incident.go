// Package incident mints the IDs that tie what a client sees of an internal
// failure to what the server logged about it.
package incident

import (
	"crypto/rand"
	"encoding/hex"
)

// Prefix starts every incident ID, so one is easy to grep in logs.
const Prefix = "inc_"

// New returns a fresh, unguessable incident ID such as "inc_3f9a0c1d2e4b5a69".
// IDs are random rather than sequential so that they reveal nothing about
// the server's traffic.
func New() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	var out [len(Prefix) + 16]byte
	copy(out[:], Prefix)
	hex.Encode(out[len(Prefix):], b[:])
	return string(out[:])
}
