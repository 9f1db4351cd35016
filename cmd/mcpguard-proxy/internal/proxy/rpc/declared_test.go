package rpc_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/declared"
)

// FuzzDeclaredMembersReadAsStrict holds core/declared's member check
// (declared.Members, which the proxy asks for a tool's arguments: the
// strict reader leaves them to it) to the strict reader: for any value
// the strict reader takes for JSON where it checks every member, nested no
// deeper than the member check reads, the check refuses it exactly when
// the strict reader finds names that readers would read differently (a
// name twice, or two that fold alike). Two hand-written readers of the
// same question cannot disagree unseen. (What the strict reader does not
// take for JSON, such as an escaped lone surrogate, which readers decode
// differently, it refuses before the check is asked.)
func FuzzDeclaredMembersReadAsStrict(f *testing.F) {
	for _, s := range []string{
		`{"path":"a"}`, `{"path":"a","path":"b"}`, `{"path":"a","PATH":"b"}`, `{"p\u0061th":1,"path":2}`,
		`{"a":{"k":1,"\u212a":2}}`, `[{"x":1},{"x":1}]`, `{"a":[{"b":1,"B":2}]}`, `"text"`, `12.5e3`, `null`,
		`{"a":1,}`, `{"a" 1}`, `[1,2`, `{"ſ":1,"s":2}`, `{"":1,"":2}`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, arg []byte) {
		if !json.Valid(arg) || !utf8.Valid(arg) || nesting(arg) > declared.DefaultMaxDepth-2 {
			return // one value, as arguments are; the strict reader refuses bad UTF-8 first; the check bounds depth
		}
		msg := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":`), arg...), "}}}"...)
		_, rerr := rpc.ReadClient(msg)
		if rerr != nil && !rpc.IsAmbiguity(rerr) {
			return // not JSON to the strict reader, which refuses it first
		}
		derr := declared.Members(arg)
		switch {
		case rerr == nil && derr != nil:
			t.Fatalf("the strict reader reads %q alike for every reader; the member check refuses it: %v", arg, derr)
		case rerr != nil && derr == nil:
			t.Fatalf("the strict reader finds %q ambiguous (%v); the member check passes it", arg, rerr)
		}
	})
}

// nesting is how deep arrays and objects nest in b, read as JSON text
// (strings skipped), however well formed.
func nesting(b []byte) int {
	depth, most, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}
