package wire_test

import (
	"encoding/hex"
	"testing"

	"github.com/mcpguard/mcpguard/core/wire"
)

// The digests are shared between replicas and versions: the repeated-
// failure guard's is a field of each caller's hash in Redis (redisstore),
// and ArgumentsDigest is inside every sealed requestState, which another
// replica opens. A change of either's bytes, of the canonical form or of
// the framing, splits a rolling upgrade's replicas on "the same call": it
// needs a new version of the store's keys and of the seal, not an edit
// here.
func TestDigestsAreStable(t *testing.T) {
	t.Parallel()
	d, ok := wire.Digest("read_file", []byte(` {"limit":1e1, "path":"a.txt"}`))
	if got := hex.EncodeToString([]byte(d)); !ok || got != "bb731a2a69c7c5f0e9415da52a4e0cd1062994dbea2497ffbdb6de9ddbe04b2a" {
		t.Errorf("Digest = %s, %v", got, ok)
	}
	for args, want := range map[string]string{
		`{ "b":2.0, "a":1 }`: "775dd67f596d45d9e191ddce309f275fe61248cc4883287b6de7301d1c7e86d2",
		`{"a":`:              "fd3674dc996cf6d4d6dcc2de4adee2408792983f5d86c5dace7c4a9a4990612a", // no canonical form: its bytes
	} {
		if sum := wire.ArgumentsDigest([]byte(args)); hex.EncodeToString(sum[:]) != want {
			t.Errorf("ArgumentsDigest(%s) = %x", args, sum)
		}
	}
}
