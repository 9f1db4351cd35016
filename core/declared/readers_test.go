package declared_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/core/declared"
)

// readersSchema declares what readersArgs binds.
const readersSchema = `{"type":"object","properties":{
	"path":{"type":"string","pattern":"^[a-z]+\\.txt$"},
	"mode":{"type":"string","enum":["read","stat"]},
	"limit":{"type":"integer","maximum":9007199254740992},
	"opts":{"type":"object","properties":{"depth":{"type":"integer","maximum":3},"tag":{"type":"string","maxLength":4}}}},
	"required":["path"]}`

// readersArgs is the tool's Go type, as a handler binding with
// encoding/json (mcp-go's typed handlers, go-sdk) declares it.
type readersArgs struct {
	Path  string `json:"path"`
	Mode  string `json:"mode"`
	Limit int64  `json:"limit"`
	Opts  struct {
		Depth int64  `json:"depth"`
		Tag   string `json:"tag"`
	} `json:"opts"`
}

// FuzzDeclaredReadersAgree: for any arguments the check accepts, what
// encoding/json binds into the tool's Go type (members matched to fields
// whatever their case, the last of a name kept) and what a reader keeping
// the first of a name reads are the values the check saw. The seeds run
// in the normal test run.
func FuzzDeclaredReadersAgree(f *testing.F) {
	for _, seed := range []string{
		`{"path":"notes.txt"}`,
		`{"path":"notes.txt","mode":"read","limit":5,"opts":{"depth":2,"tag":"ab"}}`,
		`{"path":"notes.txt","PATH":"../../etc/passwd"}`,
		`{"PATH":"../../etc/passwd","path":"notes.txt"}`,
		`{"path":"../x","path":"notes.txt"}`,
		`{"path":"../x","p\u0061th":"notes.txt"}`,
		`{"path":"notes.txt","\u212Aey":1,"limit":9007199254740993}`,
		`{"path":"notes.txt","opts":{"depth":1,"DEPTH":9}}`,
		`{"path":"notes.txt","opts":{"tag":"a","tag":"toolong"}}`,
		`{"path":"notes.txt","limit":"5"}`,
		`{"path":"notes.txt","Limit":99999999999999999999}`,
		`{"path":"notes.txt","extra":{"a":1,"A":2}}`,
	} {
		f.Add([]byte(seed))
	}
	// The nested schema goes to the library; the flat one is also taken by
	// the fast path (declared_fast.go).
	nested := declared.New("files_open", []byte(readersSchema))
	flat := declared.New("files_open", []byte(readersFlatSchema))
	f.Fuzz(func(t *testing.T, raw []byte) {
		readAlike(t, nested, raw, true)
		readAlike(t, flat, raw, false)
	})
}

// readersFlatSchema is readersSchema without the nested object: a schema
// the fast path takes.
const readersFlatSchema = `{"type":"object","properties":{
	"path":{"type":"string","pattern":"^[a-z]+\\.txt$"},
	"mode":{"type":"string","enum":["read","stat"]},
	"limit":{"type":"integer","maximum":9007199254740992}},
	"required":["path"]}`

// readAlike fails t when d accepts raw and a reader reads otherwise than
// d did, in what d declares (opts too when withOpts).
func readAlike(t *testing.T, d *declared.Checker, raw []byte, withOpts bool) {
	converted, err := d.Check(context.Background(), raw, nil, nil)
	if err != nil {
		return
	}
	if converted != nil {
		raw = converted
	}
	saw, jerr := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if jerr != nil {
		t.Fatalf("accepted %q, which is not JSON: %v", raw, jerr)
	}
	var bound readersArgs
	if json.Unmarshal(raw, &bound) != nil {
		return // the handler's reader fails on it: it acts on nothing
	}
	first, ok := firstWins(raw)
	if !ok {
		t.Fatalf("accepted %q, which a first-wins reader cannot read", raw)
	}
	if !withOpts { // not declared: nothing in opts was checked
		for _, m := range []any{saw, first} {
			if m, ok := m.(map[string]any); ok {
				delete(m, "opts")
			}
		}
		bound.Opts = readersArgs{}.Opts
	}
	if !reflect.DeepEqual(declaredOnly(saw), declaredOnly(first)) {
		t.Fatalf("accepted %q: the check saw %v, a first-wins reader reads %v", raw, saw, first)
	}
	if want := fromCheck(t, saw); !reflect.DeepEqual(bound, want) {
		t.Fatalf("accepted %q: the check saw %+v, encoding/json binds %+v", raw, want, bound)
	}
}

// fromCheck is what a readersArgs holds if it reads what the check saw.
func fromCheck(t *testing.T, saw any) readersArgs {
	t.Helper()
	b, err := json.Marshal(declaredOnly(saw))
	if err != nil {
		t.Fatal(err)
	}
	var a readersArgs
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return a
}

// declaredOnly keeps the members readersArgs declares, by their exact
// names, at both levels.
func declaredOnly(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for _, k := range []string{"path", "mode", "limit", "opts"} {
		if x, ok := m[k]; ok {
			out[k] = x
		}
	}
	if o, ok := out["opts"].(map[string]any); ok {
		in := map[string]any{}
		for _, k := range []string{"depth", "tag"} {
			if x, ok := o[k]; ok {
				in[k] = x
			}
		}
		out["opts"] = in
	}
	return out
}

// firstWins decodes JSON keeping the first member of a name, as some
// readers do.
func firstWins(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, ok := firstValue(dec)
	return v, ok
}

func firstValue(dec *json.Decoder) (any, bool) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, false
			}
			v, ok := firstValue(dec)
			if !ok {
				return nil, false
			}
			if _, dup := m[k.(string)]; !dup {
				m[k.(string)] = v
			}
		}
		_, err := dec.Token()
		return m, err == nil
	case json.Delim('['):
		var a []any
		for dec.More() {
			v, ok := firstValue(dec)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return append([]any{}, a...), err == nil // [] is an empty array, not null
	}
	return tok, true
}

// TestDeclaredReadersAgreeOnDecodedArguments: arguments an SDK handed
// over decoded only (a map, where "path" and "PATH" are both keys) are
// refused the same way.
func TestDeclaredReadersAgreeOnDecodedArguments(t *testing.T) {
	t.Parallel()
	d := declared.New("files_open", []byte(readersSchema))
	_, err := d.Check(context.Background(), nil, map[string]any{"path": "notes.txt", "PATH": "../x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("Check = %v", err)
	}
}

// TestDeclaredReadsArgumentsHandedOverAsText: decoded arguments that are
// JSON text (an in-process caller's json.RawMessage) are checked as text;
// before, the library took them for a value it cannot check and turned
// the tool's checks off for good.
func TestDeclaredReadsArgumentsHandedOverAsText(t *testing.T) {
	t.Parallel()
	d := declared.New("files_open", []byte(readersSchema))
	for range 2 {
		_, err := d.Check(context.Background(), []byte{}, json.RawMessage(`{"path":"../x"}`), nil)
		if err == nil || !strings.Contains(err.Error(), "pattern") {
			t.Fatalf("Check = %v", err)
		}
	}
	if !d.Enforced() {
		t.Fatal("the tool's checks were turned off")
	}
}

// TestDeclaredFindsRepeatsAmongManyMembers: past a few members an object's
// names are looked up rather than compared one by one (linear time on an
// object of 20,000 members), and a repeat or case variant late in it is
// still found.
func TestDeclaredFindsRepeatsAmongManyMembers(t *testing.T) {
	t.Parallel()
	d := declared.New("files_open", []byte(readersSchema))
	var b strings.Builder
	b.WriteString(`{"path":"a.txt","extra":{`)
	for i := range 20000 {
		fmt.Fprintf(&b, `"k%d":1,`, i)
	}
	for _, tail := range []string{`"k7":2}}`, `"K7":2}}`} {
		_, err := d.Check(context.Background(), []byte(b.String()+tail), nil, nil)
		if err == nil || !strings.Contains(err.Error(), "extra.") {
			t.Fatalf("%s: Check = %v", tail, err)
		}
	}
	if _, err := d.Check(context.Background(), []byte(b.String()+`"k20000":2}}`), nil, nil); err != nil {
		t.Fatalf("distinct members: %v", err)
	}
}
