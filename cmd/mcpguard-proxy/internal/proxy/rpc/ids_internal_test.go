package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzIDKey holds IDKey's fast path for plain strings to encoding/json:
// a string id's key is the value encoding/json reads, whatever its
// spelling, and an id encoding/json refuses has none. An id that
// MintedIDs.minted reads as minted has the key of the id it minted.
func FuzzIDKey(f *testing.F) {
	for _, id := range []string{`"a"`, `"\u0061"`, `"é"`, "\"\xff\"", "\"a\tb\"", `"a\"b"`, `""`, `"`, `"a`, `7`, `-7`, `7.0`, `8E0`, `"mcpguard-abc-12"`, `"mcpguard-abc-012"`, `"\u006dcpguard-abc-12"`, `"mcpguard-abc-"`, `"mcpguard-abc-1x"`, `"mcpguard-abc-99999999999999999999"`} {
		f.Add([]byte(id))
	}
	ids := &MintedIDs{Prefix: "mcpguard-abc-"}
	f.Fuzz(func(t *testing.T, id []byte) {
		key, ok := IDKey(id)
		if n, minted := ids.Minted(id); minted {
			if !ok || key != "s"+ids.Prefix+strconv.FormatUint(n, 10) {
				t.Fatalf("minted(%q) = %d; its key %q is not a minted id's", id, n, key)
			}
		}
		trimmed := bytes.Trim(id, jsonSpace)
		if len(trimmed) == 0 || trimmed[0] != '"' {
			return
		}
		var s string
		err := json.Unmarshal(trimmed, &s)
		if ok != (err == nil) || (ok && key != "s"+s) {
			t.Fatalf("idKey(%q) = %q, %v; encoding/json reads %q, %v", id, key, ok, s, err)
		}
	})
}
