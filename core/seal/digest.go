package seal

import (
	"crypto/sha256"

	"github.com/mcpguard/mcpguard/core/wire"
)

// ArgumentsDigest is the SHA-256 of the canonical form of a call's
// arguments (a JSON value), core/wire's, the one every consumer names
// "the same arguments" by: objects with their members sorted, no
// insignificant space, strings by their decoded value, numbers by their
// exact value (1 and 1.0 alike, every digit of a big integer kept).
// Absent arguments, null and {} digest alike. A client that re-encodes
// the same arguments on its retry, reordering members, spacing or
// escaping otherwise, therefore yields the same digest; one that changes
// a value does not.
//
// Arguments that readers may read differently digest as their bytes, so
// that no reordering of them keeps the digest: an object with two members
// whose names are equal, or equal but for case (encoding/json matches
// struct fields case-insensitively, and keeps the last of duplicates;
// other readers keep the first), text that is not JSON, invalid UTF-8,
// or nesting deeper than core/wire.MaxDepth.
func ArgumentsDigest(raw []byte) [sha256.Size]byte { return wire.ArgumentsDigest(raw) }
