package proxy

import (
	"bytes"
	"encoding/json"
	"testing"
)

var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a \"quoted\" }]"}}}`,
	`{ "id" : "x-1" , "result" : {"content":[{"type":"text","text":"{[\\"]"}],"isError":true} }`,
	`{"method":"notifications/progress","params":{"progressToken":1}}`,
	`{"id":null,"error":{"code":-32700,"message":"parse"}}`,
	`{"\u0069d":7,"method":"ping"}`,
	`{"id":1,"id":2,"method":"a","method":"b"}`,
	`{"id":[1,{"a":"}"}],"method":"x\ty\u00e9"}`,
	`{"method":3}`,
	`[1,2]`, `"s"`, `{}`, `{"a":{}}`, ` {"id" :1e3 ,"result": true } `,
}

// TestParseAgreesWithEncodingJSON: the allocation-free head scanner finds
// what encoding/json finds, for ids, methods, params, results and errors.
func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range scanSeeds {
		checkParse(t, []byte(s))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, []byte(s)) })
}

func checkParse(t *testing.T, b []byte) {
	var want struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	werr := json.Unmarshal(b, &want)
	if t := bytes.TrimSpace(b); werr == nil && (len(t) == 0 || t[0] != '{') {
		werr = errNotObject // encoding/json decodes null into a struct
	}
	got, gerr := parse(b)
	if (werr == nil) != (gerr == nil) {
		// encoding/json matches keys case-insensitively; the scanner, as
		// JSON-RPC, exactly. Only a method that is not a string differs.
		if !bytes.Contains(bytes.ToLower(b), []byte(`"method"`)) || bytes.Contains(b, []byte(`"method"`)) {
			t.Fatalf("%q: encoding/json %v, parse %v", b, werr, gerr)
		}
		return
	}
	if werr != nil || !exactKeys(b) {
		return
	}
	method := ""
	if want.Method != nil {
		method = *want.Method
	}
	if string(got.ID) != string(want.ID) || got.Method != method || string(got.Params) != string(want.Params) ||
		string(got.Result) != string(want.Result) || string(got.Error) != string(want.Error) {
		t.Fatalf("%q:\n got id=%s method=%q params=%s result=%s error=%s\nwant id=%s method=%q params=%s result=%s error=%s",
			b, got.ID, got.Method, got.Params, got.Result, got.Error, want.ID, method, want.Params, want.Result, want.Error)
	}
}

// exactKeys reports whether no key of b's top level differs from one of the
// head's names only by case (where encoding/json and the scanner differ).
func exactKeys(b []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	for k := range m {
		for _, n := range []string{"id", "method", "params", "result", "error"} {
			if k != n && bytes.EqualFold([]byte(k), []byte(n)) {
				return false
			}
		}
	}
	return true
}

func TestMayBeError(t *testing.T) {
	for s, want := range map[string]bool{
		`{"content":[]}`:                            false,
		`{"content":[],"isError":false}`:            false,
		`{"content":[{"text":"\"isError\":true"}]}`: false,
		`{"isError":true}`:                          true,
		`{"isError" : null}`:                        true, // decoded in full, then read as false
		`[]`:                                        true,
	} {
		if got := mayBeError([]byte(s)); got != want {
			t.Errorf("mayBeError(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestRoutingAllocatesNothing: reading a pass-through message's head, and
// a success's result for isError, allocates nothing.
func TestRoutingAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	req := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}`)
	n := testing.AllocsPerRun(200, func() {
		m, err := parse(req)
		if err != nil || m.Method != "tools/call" {
			t.Fatal("parse")
		}
		r, err := parse(resp)
		if err != nil || mayBeError(r.Result) {
			t.Fatal("parse result")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per message pair, want 0", n)
	}
}
