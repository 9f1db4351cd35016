package rpc

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzQuickReadsAsRead holds the quick reader to read: on any input, it
// reads what read reads (the same members, at the same offsets, and for a
// tools/call the same params), or it declines. When it says a
// call's params are formatted, jsontext's formatting leaves them as they
// are, so the call goes upstream as it would have.
func FuzzQuickReadsAsRead(f *testing.F) {
	for _, s := range quickSeeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, strict bool) {
		q, qc, ok := quickRead(b, strict)
		if !ok {
			return
		}
		m, err := read(b, strict)
		if err != nil {
			t.Fatalf("the quick reader read %q (strict %v), which read refuses: %v", b, strict, err)
		}
		if !bytes.Equal(q.ID, m.ID) || q.IDAt != m.IDAt || q.Method != m.Method ||
			!bytes.Equal(q.Params, m.Params) || !bytes.Equal(q.Result, m.Result) || !bytes.Equal(q.Error, m.Error) {
			t.Fatalf("%q (strict %v):\nquick %+v\nread  %+v", b, strict, q, m)
		}
		if !strict || m.Method != "tools/call" {
			if qc.Tool != nil || qc.Args != nil || qc.Plain {
				t.Fatalf("%q: a call read of a message that is not a client's tools/call: %+v", b, qc)
			}
			return
		}
		// (the proxy's FuzzQuickCallReadsAsNewCall holds qc to what the
		// proxy reads of the params itself)
		up := []byte(`"mcpguard-x-1"`)
		if qc.Plain && !bytes.Equal(OwnCall(up, m.Params, true), OwnCall(up, m.Params, false)) {
			t.Fatalf("%q: params said formatted are not: %s", b, OwnCall(up, m.Params, false))
		}
	})
}

var quickSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a b"},"_meta":{"progressToken":7}}}`,
	`{"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","n":-1.5e3,"l":[true,false,null,{}],"o":{"x":[]}}},"jsonrpc":"2.0","id":"a"}`,
	`{ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "echo", "arguments": { "t": "x" } } }`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"t":"tab\there \"q\" é"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"t":"\u0061"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","TEXT":"b"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","Name":"drop","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","requestState":"s"}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"ping"}`,
	`{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\"}}",
	"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\\u00e9\"}]}}",
	`{"result":{"content":[{"type":"text","text":"Echo: x"}]},"jsonrpc":"2.0","id":"mcpguard-abcdefghij-12"}`,
	`{"jsonrpc":"2.0","id":"mcpguard-a-1","error":{"code":-32603,"message":"boom"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
	`{"id":1,"id":2}`, `{}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":"\ud800"}`, `{"a":"\x01"}`, `[1]`, `{"a":1} x`, `{"a":1`,
	`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":{"s":{"t":{"u":{"v":{"w":{"x":{"y":{"z":{"A":{"B":{"C":{"D":{"E":{"F":{"G":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}`,
	`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1}`,
}

// TestQuickReadsWhatClientsWrite: the messages SDKs write are read by the
// quick reader, not declined to read, and those it cannot vouch for are
// declined, never refused.
func TestQuickReadsWhatClientsWrite(t *testing.T) {
	for _, s := range []string{
		// TypeScript SDK
		`{"method":"tools/call","params":{"name":"echo","arguments":{"message":"latency 1"},"_meta":{"progressToken":3}},"jsonrpc":"2.0","id":3}`,
		// go-sdk and mcp-go
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"résumé","limit":10,"tags":["a","b"]}}}`,
		// Python SDK
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2.5}}}`,
	} {
		m, err := ReadClient([]byte(s))
		if err != nil || !m.Quick || !m.Call.Plain || len(m.Call.Tool) == 0 {
			t.Errorf("read %s: quick %v, formatted %v, tool %q, err %v", s, m.Quick, m.Call.Plain, m.Call.Tool, err)
		}
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"t":"\u00e9"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"\u00e9":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"é":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `}}`,
	} {
		if _, _, ok := quickRead([]byte(s), true); ok {
			t.Errorf("the quick reader read %s, which it cannot vouch for", s)
		}
		if _, err := ReadClient([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// quickRead is quickReadInto, returning the message and what it read of a
// client's tools/call apart.
func quickRead(b []byte, strict bool) (m Message, qc QuickCall, ok bool) {
	ok = quickReadInto(b, strict, &m)
	qc, m.Call, m.Quick = m.Call, QuickCall{}, false
	return m, qc, ok
}
