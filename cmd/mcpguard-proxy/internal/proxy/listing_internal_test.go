package proxy

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// FuzzOwnListRequestCarriesTheClient: whatever a client's tools/call the
// strict reader admits, the tools/list the proxy sends on its behalf
// (ownListRequest) is one JSON object, read alike by the strict reader and
// encoding/json, asking for tools/list with the cursor given, whose _meta
// holds exactly the client-describing members (clientKeys) of the call's
// _meta, each as the call sent it. A client shapes only those values.
func FuzzOwnListRequestCarriesTheClient(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":7}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/clientCapabilities":{},"\u0069o.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), `page "2"`)
	}
	f.Fuzz(func(t *testing.T, b []byte, cursor string) {
		m, err := rpc.ReadClient(b)
		if err != nil || m.Method != "tools/call" || !utf8.ValidString(cursor) {
			return // a cursor is a string the server's JSON held: UTF-8
		}
		out := ownListRequest([]byte(`"mcpguard-x-1"`), cursor, m.Params)
		if _, err := rpc.ReadClient(out); err != nil {
			t.Fatalf("the strict reader refuses the proxy's own listing %q: %v", out, err)
		}
		var got struct {
			Method string `json:"method"`
			Params struct {
				Cursor *string                    `json:"cursor"`
				Meta   map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(out, &got); err != nil || got.Method != "tools/list" {
			t.Fatalf("%q: %v", out, err)
		}
		if (cursor != "") != (got.Params.Cursor != nil) || (got.Params.Cursor != nil && *got.Params.Cursor != cursor) {
			t.Fatalf("cursor %q, the listing asks %q", cursor, out)
		}
		var sent struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &sent)
		want := map[string]json.RawMessage{}
		for _, k := range clientKeys {
			if v, ok := sent.Meta[k]; ok {
				want[k] = v
			}
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(compact(t, got.Params.Meta), compact(t, want)) {
			t.Fatalf("the call's _meta %s; the listing's %s", sent.Meta, got.Params.Meta)
		}
	})
}

// compact is m with each value compacted, for comparing values as JSON.
func compact(t *testing.T, m map[string]json.RawMessage) map[string]string {
	t.Helper()
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		b, _ := json.Marshal(x)
		out[k] = string(b)
	}
	return out
}

// TestListHeadersDescribeTheListing: the proxy's own tools/list carries
// the client's headers but those describing the call's body, and its own
// Mcp-Method when the client sent one.
func TestListHeadersDescribeTheListing(t *testing.T) {
	src := http.Header{
		"Authorization":        {"Bearer t"},
		"Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Session-Id":       {"s"},
		"Mcp-Method":           {"tools/call"},
		"Mcp-Name":             {"deploy"},
		"Mcp-Param-Region":     {"eu"},
		"Content-Length":       {"120"},
		"Accept-Encoding":      {"gzip"},
		"Content-Type":         {"application/json; charset=utf-8"},
	}
	dst := http.Header{}
	listHeaders(dst, src)
	want := http.Header{
		"Authorization":        {"Bearer t"},
		"Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Session-Id":       {"s"},
		"Mcp-Method":           {"tools/list"},
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
	}
	if !maps.EqualFunc(dst, want, func(a, b []string) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("listing headers %v, want %v", dst, want)
	}
	older := http.Header{"Mcp-Session-Id": {"s"}}
	dst = http.Header{}
	listHeaders(dst, older)
	if dst.Get("Mcp-Method") != "" || dst.Get("Mcp-Session-Id") != "s" {
		t.Fatalf("a client of an older revision: %v", dst)
	}
}
