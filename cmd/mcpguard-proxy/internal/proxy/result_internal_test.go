package proxy

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/wire"
)

// FuzzPlainSuccess holds the one pass that lets a success through
// undecoded to the checks it stands for, and to encoding/json: a result
// it passes holds no name encoding/json reads as isError, taskId,
// requestState or the toolFailure _meta, in any case, the long s and the
// Kelvin sign included, but the result's own "isError": false, which
// encoding/json reads as false.
func FuzzPlainSuccess(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"ok"}]}`,
		`{"content":[],"isError":true}`, `{"IsError":true}`, "{\"i\u017fError\":true}",
		`{"task":{"taskId":"t"}}`, "{\"task\":{\"tas\u212aId\":\"t\"}}", `{"requestState":"x"}`,
		`{"_meta":{"io.modelcontextprotocol/toolFailure":{}}}`, `{"is\u0045rror":true}`,
		`{"content":[],"isError":false}`, `{"isError":false,"IsError":true}`, `{"isError":false,"x":{"isError":true}}`,
		`{"isError":false,"isError":true}`, `{"isError" : false }`, `{"content":[{"text":"isError"}],"isError":false}`,
		`null`, `"done"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		plain := plainSuccess(b)
		others := mayHaveFailureMeta(b) || wire.ContainsFold(b, foldRequestState) || mayBeHandle(b)
		if !plain && isObject(b) && !others && !mayBeError(b) {
			t.Fatalf("plainSuccess(%q) = false, though none of the checks it stands for finds anything", b)
		}
		if plain && !isObject(b) {
			t.Fatalf("plainSuccess(%q) = true for a result that is not an object", b)
		}
		if !plain {
			return
		}
		if others {
			t.Fatalf("plainSuccess(%q) = true, against the checks it stands for", b)
		}
		words := []string{"toolfailure", "requeststate", "taskid"}
		if !rpc.FalseMember(b, "isError") {
			words = append(words, "iserror")
		}
		for _, w := range words {
			for i := range b {
				for j := i + 1; j <= len(b) && j-i <= 3*len(w); j++ {
					if bytes.EqualFold(b[i:j], []byte(w)) {
						t.Fatalf("%q holds %q, which folds to %s", b, b[i:j], w)
					}
				}
			}
		}
		var r struct{ IsError bool }
		if json.Unmarshal(b, &r) == nil && r.IsError {
			t.Fatalf("encoding/json reads isError in %q", b)
		}
	})
}

// TestPlainSuccesses: successes as servers write them pass undecoded, the
// Python SDK's "isError": false included; any other name encoding/json
// reads as isError sends the result to the decoding.
func TestPlainSuccesses(t *testing.T) {
	for s, want := range map[string]bool{
		`{"content":[{"type":"text","text":"Echo: hi"}]}`:                   true,
		`{"content":[{"type":"text","text":"hi"}],"isError":false}`:         true,
		`{"content":[],"structuredContent":{"n":1},"isError": false}`:       true,
		`{"content":[],"isError":true}`:                                     false,
		`{"content":[],"isError":false,"ISERROR":true}`:                     false,
		`{"content":[{"type":"text","text":"isError"}],"isError":false}`:    false, // two: decoded, to be sure
		`{"content":[],"structuredContent":{"isError":false}}`:              false, // not the result's own
		`{"content":[],"_meta":{"io.modelcontextprotocol/toolFailure":{}}}`: false,
		`{"content":[],"isError":false,"requestState":"s"}`:                 false,
	} {
		if got := plainSuccess([]byte(s)); got != want {
			t.Errorf("plainSuccess(%s) = %v, want %v", s, got, want)
		}
	}
}
