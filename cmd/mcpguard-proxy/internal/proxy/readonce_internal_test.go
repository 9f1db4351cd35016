package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// FuzzForwardedReadsAsChecked is the differential test of the read-once
// design: for any client message the proxy forwards, the id, method, tool
// name and arguments that encoding/json (last member wins, names matched
// in any case) and a first-wins, case-insensitive reader (RapidJSON, gjson)
// read in what goes upstream are the ones the proxy checked.
func FuzzForwardedReadsAsChecked(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
		`{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"e\u0063ho","arguments":{"t":[1,{"a":2}]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","Name":"drop","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"a://b"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\"}}",
		`{"id":1,"method":"tools/call","params":{"name":"k","arguments":{"\u212aey":1,"key":2}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := rpc.ReadClient(b)
		if err != nil || !m.IsRequest() {
			return // answered by the proxy, or not a request: nothing to route
		}
		if _, ok := rpc.IDKey(m.ID); !ok {
			return // refused
		}
		up := []byte(`"mcpguard-x-1"`)
		out := rpc.WithID(b, &m, up)
		var c *call
		if m.Method == "tools/call" {
			c = newGuard().callOf(&m, nil)
			out = upstreamCall(up, c, &m)
		}
		for name, read := range map[string]func([]byte) (upstream, bool){"encoding/json": lastWins, "first-wins": firstWins} {
			got, ok := read(out)
			if !ok {
				t.Fatalf("%s cannot read what the proxy sends: %q", name, out)
			}
			if !bytes.Equal(got.id, up) || got.method != m.Method {
				t.Fatalf("%s reads id %s method %q, the proxy sent %s %q: %q", name, got.id, got.method, up, m.Method, out)
			}
			if c != nil && (got.tool != c.tool || !sameJSON(got.args, c.args)) {
				t.Fatalf("%s reads tool %q arguments %s, the proxy checked %q %s: %q", name, got.tool, got.args, c.tool, c.args, b)
			}
		}
	})
}

// upstream is what a server reads of a request.
type upstream struct {
	id, args     []byte
	method, tool string
}

func lastWins(b []byte) (upstream, bool) {
	var m struct {
		ID     json.RawMessage
		Method string
		Params struct {
			Name      string
			Arguments json.RawMessage
		}
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(b, &m); err != nil && !errors.As(err, &typeErr) {
		return upstream{}, false // a member of another type is read as unset, as servers read it
	}
	return upstream{id: m.ID, method: m.Method, tool: m.Params.Name, args: m.Params.Arguments}, true
}

// firstWins reads the first member whose name matches in any case.
func firstWins(b []byte) (upstream, bool) {
	top, ok := firstMembers(b)
	if !ok {
		return upstream{}, false
	}
	u := upstream{id: top["id"]}
	_ = json.Unmarshal(top["method"], &u.method)
	if params, ok := firstMembers(top["params"]); ok {
		_ = json.Unmarshal(params["name"], &u.tool)
		u.args = params["arguments"]
	}
	return u, true
}

func firstMembers(b []byte) (map[string][]byte, bool) {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	out := map[string][]byte{}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, false
		}
		k := string(bytes.ToLower([]byte(name.String()))) // before the next read voids the token
		v, err := d.ReadValue()
		if err != nil {
			return nil, false
		}
		if _, seen := out[k]; !seen {
			out[k] = bytes.Clone(v)
		}
	}
	return out, true
}

func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	dx.UseNumber()
	dy.UseNumber()
	return dx.Decode(&x) == nil && dy.Decode(&y) == nil && reflect.DeepEqual(x, y)
}
