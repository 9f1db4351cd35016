package proxy

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAmbiguousAgreesWithEncodingJSON: every key encoding/json would
// match to a member the proxy reads, but that the proxy does not read as
// that member, is found; and exact, single keys are not.
func TestAmbiguousAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"Name":1,"name":2},"_meta":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","Params":{}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","paramſ":{}}`, true},                    // ſ folds to s
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"\u212aey":1}}`, false}, // K is not a name's fold
		{`{"jsonrpc":"2.0","\u0069d":1,"method":"ping"}`, false},                          // an escape, not a variant
		{`{"jsonrpc":"2.0","\u0069D":1,"method":"ping"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"Name":"x"}}`, false}, // only tools/call's params
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","nAme":"y"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{},"METHOD":"x"}`, true},
		{`{"id":1,"error":{},"error":{}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","methods":1,"ids":2,"Paramss":3}`, false},
	} {
		m, err := parse([]byte(c.msg))
		if err != nil {
			t.Fatalf("%s: %v", c.msg, err)
		}
		if got := !ambiguous(&m).none(); got != c.want {
			t.Errorf("%s: ambiguous %v, want %v", c.msg, got, c.want)
		}
	}
}

// TestAmbiguousFoldsAsEncodingJSON: a key the check passes as not one of
// the names is one encoding/json does not decode into it either.
func TestAmbiguousFoldsAsEncodingJSON(t *testing.T) {
	for _, k := range []string{"ID", "İd", "ıd", "\u212ad", "Ⅰd", "paramſ", "paRams", "pArams ", "résult", "JSONRPC", "ERROR"} {
		msg := `{"` + k + `":"x"}`
		var v struct {
			JSONRPC string `json:"jsonrpc"`
			ID      string `json:"id"`
			Params  string `json:"params"`
			Result  string `json:"result"`
			Error   string `json:"error"`
		}
		if err := json.Unmarshal([]byte(msg), &v); err != nil {
			t.Fatal(err)
		}
		decoded := v.JSONRPC+v.ID+v.Params+v.Result+v.Error != ""
		m, _ := parse([]byte(msg))
		if got := !ambiguous(&m).none(); got != decoded {
			t.Errorf("key %q: ambiguous %v, encoding/json decodes it into a member: %v", k, got, decoded)
		}
	}
}

func TestAmbiguityRefusal(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":"a","method":"tools/call","Method":"x","params":{"name":"t","Name":"u"}}`
	m, _ := parse([]byte(msg))
	got := string(ambiguous(&m).refusal(&m))
	if !strings.Contains(got, `"id":"a"`) || !strings.Contains(got, `\"method\"`) || !strings.Contains(got, `\"name\" in params`) ||
		!strings.Contains(got, "-32600") {
		t.Errorf("refusal %s", got)
	}
}

// TestAmbiguousAllocs: checking an ordinary tools/call allocates nothing.
func TestAmbiguousAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	req := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":1}}}`)
	n := testing.AllocsPerRun(200, func() {
		m, err := parse(req)
		if err != nil || !ambiguous(&m).none() {
			t.Fatal("ambiguous")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per message, want 0", n)
	}
}

// BenchmarkAmbiguous: reading a tools/call's head, alone and with the
// ambiguity check, side by side.
func BenchmarkAmbiguous(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m, err := parse(req); err != nil || m.Method != "tools/call" {
				b.Fatal("parse")
			}
		}
	})
	b.Run("ambiguous", func(b *testing.B) {
		m, _ := parse(req)
		b.ReportAllocs()
		for b.Loop() {
			if !ambiguous(&m).none() {
				b.Fatal("ambiguous")
			}
		}
	})
	b.Run("parse+ambiguous", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := parse(req)
			if err != nil || !ambiguous(&m).none() {
				b.Fatal("ambiguous")
			}
		}
	})
}

// FuzzUnambiguousReadsAlike: a message the check lets through is read by
// encoding/json (an mcp-go server's decoder: keys in any case, the last
// winning) exactly as the proxy reads it: the same head and, for a
// tools/call, the same tool name and arguments. (Invalid UTF-8, which
// encoding/json replaces with U+FFFD, is left aside.)
func FuzzUnambiguousReadsAlike(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1},"Name":"b"}}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","\u0061rguments":{}}}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"paramſ":[],"method":"tools/call","params":{"name":"a"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		m, err := parse(b)
		if err != nil || !utf8.Valid(b) || !ambiguous(&m).none() {
			return
		}
		var want struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(b, &want) != nil {
			return
		}
		if string(m.ID) != string(want.ID) || m.Method != want.Method || string(m.Params) != string(want.Params) ||
			string(m.Result) != string(want.Result) || string(m.Error) != string(want.Error) {
			t.Fatalf("%q: the proxy reads id=%s method=%q params=%s, encoding/json id=%s method=%q params=%s",
				s, m.ID, m.Method, m.Params, want.ID, want.Method, want.Params)
		}
		if m.Method != "tools/call" {
			return
		}
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if c := newCall(m.ID, m.Params); c.tool != p.Name || string(c.args) != string(p.Arguments) {
			t.Fatalf("%q: the proxy calls %q with %s, encoding/json %q with %s", s, c.tool, c.args, p.Name, p.Arguments)
		}
	})
}
