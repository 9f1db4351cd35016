package proxy

import (
	"bytes"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// FuzzQuickCallReadsAsNewCall holds what the quick reader reads of a
// client's tools/call (rpc.QuickCall: the tool and the arguments, which
// the guard then reads no further) to what newCall reads of the same
// params: the same tool, the same arguments, and never a call that
// echoes a requestState.
func FuzzQuickCallReadsAsNewCall(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a b"},"_meta":{"progressToken":7}}}`,
		`{ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "echo", "arguments": { "t": "x" } } }`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e\u0063ho","arguments":{"t":"\u0061"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","requestState":"s"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","Name":"drop","arguments":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := rpc.ReadClient(b)
		if err != nil || !m.Quick || m.Method != "tools/call" {
			return
		}
		qc := m.Call
		c := newCall(m.ID, m.Params)
		if c.tool != string(qc.Tool) || !bytes.Equal(c.args, qc.Args) || c.hasState {
			t.Fatalf("%q: quick reads tool %q arguments %s; newCall %q %s (state %v)", b, qc.Tool, qc.Args, c.tool, c.args, c.hasState)
		}
	})
}

// TestGuardReadsTheQuickCall: the guard takes a call the quick reader read
// of the messages SDKs write as it read it.
func TestGuardReadsTheQuickCall(t *testing.T) {
	for _, s := range []string{
		`{"method":"tools/call","params":{"name":"echo","arguments":{"message":"latency 1"},"_meta":{"progressToken":3}},"jsonrpc":"2.0","id":3}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"résumé","limit":10,"tags":["a","b"]}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2.5}}}`,
	} {
		m, err := rpc.ReadClient([]byte(s))
		if err != nil || !m.Quick {
			t.Fatalf("read %s: quick %v, err %v", s, m.Quick, err)
		}
		c := newGuard().callOf(&m, nil)
		if string(c.args) == "" || c.tool != string(m.Call.Tool) {
			t.Errorf("%s: call %+v", s, c)
		}
	}
}
