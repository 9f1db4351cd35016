package declared_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// fileSchema is what public servers declare with mcp.WithString,
// mcp.WithNumber, mcp.Required, mcp.Enum and mcp.Min/Max.
const fileSchema = `{"type":"object","properties":{
	"path":{"type":"string","description":"File to read"},
	"mode":{"type":"string","enum":["text","binary","hex"]},
	"limit":{"type":"integer","minimum":1,"maximum":100},
	"follow":{"type":"boolean"}},
	"required":["path"]}`

// check runs one declared check and renders a failure as the fronts do.
func check(t testing.TB, d *declared.Checker, args string) (converted string, env *envelope.Envelope) {
	t.Helper()
	var raw []byte
	if args != "" {
		raw = []byte(args)
	}
	out, err := d.Check(context.Background(), raw, nil, nil)
	if err == nil {
		return string(out), nil
	}
	if out != nil {
		t.Fatalf("Check(%s): both converted arguments and an error", args)
	}
	r := envelope.NewRenderer()
	e := r.Error(context.Background(), envelope.Call{Tool: tool, Args: raw}, err)
	text := string(e.Marshal())
	got, ok := envelope.Parse(text)
	if !ok {
		t.Fatalf("not an envelope: %s", text)
	}
	if got.ErrorType != envelope.ValidationError || len(got.Fields) == 0 {
		t.Fatalf("want a validation_error with fields, got %s", text)
	}
	return "", got
}

func TestDeclaredFieldsAsBindGivesThem(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	if !d.Enforced() {
		t.Fatalf("a plain schema is not enforced: %v", d.Off())
	}
	cases := []struct{ args, want, message string }{
		{`{}`, "path:required", "path is required"},
		{`{"path":12345}`, "path:type", "path must be a string, not a number"},
		{`{"path":"a","mode":"Text"}`, "mode:oneof", `mode must be one of: text, binary, hex (got "Text"); did you mean "text"?`},
		{`{"path":"a","limit":9999}`, "limit:max", "limit must be at most 100 (got 9999)"},
		{`{"path":"a","limit":0}`, "limit:min", "limit must be at least 1 (got 0)"},
		{`{"path":"a","limit":2.5}`, "limit:type", "limit must be an integer, not a number"},
		{`{"path":"a","follow":"yes"}`, "follow:type", "follow must be a boolean, not a string"},
		{`[1,2]`, ":type", "the arguments must be an object, not an array"},
		{`"path"`, ":type", "the arguments must be an object, not a string"},
	}
	for _, c := range cases {
		_, env := check(t, d, c.args)
		if env == nil {
			t.Errorf("%s: accepted", c.args)
			continue
		}
		if got := rules(env); got != c.want {
			t.Errorf("%s: fields %s, want %s", c.args, got, c.want)
		}
		if env.Fields[0].Message != c.message {
			t.Errorf("%s: message %q, want %q", c.args, env.Fields[0].Message, c.message)
		}
	}
	_, env := check(t, d, `{"path":"a","mode":"Text"}`)
	if f := env.Fields[0]; strings.Join(f.Allowed, ",") != "text,binary,hex" || f.Suggestion != "text" {
		t.Errorf("enum field: %+v", f)
	}
}

func TestDeclaredMissingAndNullArgumentsAreAnEmptyObject(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	for _, args := range []string{"", "null", " null "} {
		_, env := check(t, d, args)
		if env == nil || rules(env) != "path:required" {
			t.Errorf("%q: %+v, want path:required", args, env)
		}
	}
	free := declared.New("ping", []byte(`{"type":"object"}`))
	for _, args := range []string{"", "null", "{}"} {
		if _, env := check(t, free, args); env != nil {
			t.Errorf("%q refused by a schema without properties: %+v", args, env.Fields)
		}
	}
}

func TestDeclaredUnknownMembersWithAdditionalPropertiesFalse(t *testing.T) {
	t.Parallel()
	d := declared.New("greet", []byte(`{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}`))
	_, env := check(t, d, `{"nam":"x"}`)
	if env == nil {
		t.Fatal("unknown member accepted")
	}
	f := field(t, env, "nam")
	if f.Rule != "unknown" || f.Suggestion != "name" || strings.Join(f.Allowed, ",") != "name" {
		t.Errorf("unknown member: %+v", f)
	}
}

func TestDeclaredConvertsLosslessSpellingsOnly(t *testing.T) {
	t.Parallel()
	l := &logs{}
	d := declared.New("read_file", []byte(fileSchema), declared.WithLogger(slogDebug(l)))
	got, env := check(t, d, `{"path":"a","limit":"5","follow":"true"}`)
	if env != nil {
		t.Fatalf("lossless spellings refused: %+v", env.Fields)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("converted arguments %q: %v", got, err)
	}
	if m["limit"] != float64(5) || m["follow"] != true || m["path"] != "a" {
		t.Errorf("converted = %s", got)
	}
	if !strings.Contains(l.String(), "converted string arguments") || !strings.Contains(l.String(), "limit") {
		t.Errorf("the conversion is not logged: %s", l.String())
	}
	for _, args := range []string{`{"path":"a","limit":"5.0"}`, `{"path":"a","limit":" 5"}`, `{"path":"a","limit":"5e0"}`,
		`{"path":"a","follow":"yes"}`, `{"path":"a","follow":"True"}`, `{"path":"a","limit":"500"}`, `{"path":5}`} {
		if _, env := check(t, d, args); env == nil {
			t.Errorf("%s: accepted, want refused", args)
		}
	}
	// "500" is an integer's spelling but still beyond the maximum: refused
	// by the bound, not by the type.
	if _, env := check(t, d, `{"path":"a","limit":"500"}`); env == nil || rules(env) != "limit:max" {
		t.Errorf("converted value out of bounds: %+v", env)
	}
}

func TestDeclaredUnusableSchemasAreNotEnforced(t *testing.T) {
	t.Parallel()
	huge := `{"type":"object","description":"` + strings.Repeat("x", declared.MaxSchemaBytes) + `"}`
	deep := `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, 100) + `{}` + strings.Repeat(`}`, 100) + `}}`
	for name, schema := range map[string]string{
		"not JSON":          `{"type":`,
		"bad keyword value": `{"type":"object","properties":{"a":{"type":"strin"}}}`,
		"remote $ref":       `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		"file $ref":         `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		"unknown dialect":   `{"$schema":"https://example.com/my-dialect","type":"object","properties":{"a":{"type":"string"}}}`,
		"too large":         huge,
		"too deep":          deep,
	} {
		l := &logs{}
		d := declared.New("t", []byte(schema), declared.WithLogger(l.logger()))
		if d.Enforced() || d.Off() == nil {
			t.Errorf("%s: enforced", name)
			continue
		}
		for range 3 {
			if _, env := check(t, d, `{"a":1}`); env != nil {
				t.Errorf("%s: a call failed because of the server's schema: %+v", name, env.Fields)
			}
		}
		if n := strings.Count(l.String(), "not enforced"); n != 1 {
			t.Errorf("%s: %d warnings, want one: %s", name, n, l.String())
		}
	}
}

func TestDeclaredRefCycleNeverLoops(t *testing.T) {
	t.Parallel()
	// A cycle through properties makes progress along the arguments and
	// is bounded by their depth; one without progress is the schema's
	// fault and turns enforcement off.
	tree := declared.New("t", []byte(`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}`))
	if _, env := check(t, tree, `{"root":{"next":{"next":{"next":1}}}}`); env == nil || rules(env) != "root.next.next.next:type" {
		t.Errorf("recursive schema: %+v", env)
	}
	loop := declared.New("t", []byte(`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`))
	if _, env := check(t, loop, `{"x":1}`); env != nil {
		t.Errorf("a ref cycle failed the call: %+v", env.Fields)
	}
}

func TestDeclaredBoundsHostileArguments(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	deep := `{"path":"a","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	if _, env := check(t, d, deep); env == nil || env.Fields[0].Rule != "depth" {
		t.Errorf("10,000 levels: %+v", env)
	}
	big := `{"path":"a","x":[` + strings.Repeat("1,", 1<<19) + `1]}`
	if _, env := check(t, d, big); env == nil || env.Fields[0].Rule != "size" {
		t.Errorf("a 1 MiB array: %+v", env)
	}
	many := declared.New("t", []byte(`{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`))
	args := `{"ids":[` + strings.Repeat(`"x",`, 5000) + `"x"]}`
	_, env := check(t, many, args)
	if env == nil || len(env.Fields) != declared.MaxFieldErrors+1 || env.Fields[declared.MaxFieldErrors].Rule != "more" {
		t.Fatalf("5,001 violations: %+v", env)
	}
	if b, _ := json.Marshal(env); len(b) > maxFailureBytes {
		t.Errorf("the failure is %d bytes", len(b))
	}
}

func TestDeclaredHugeEnumIsBounded(t *testing.T) {
	t.Parallel()
	values := make([]string, 20000)
	for i := range values {
		values[i] = `"v` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `"`
	}
	schema := `{"type":"object","properties":{"tags":{"type":"array","items":{"enum":[` + strings.Join(values, ",") + `]}}}}`
	d := declared.New("t", []byte(schema))
	if !d.Enforced() {
		t.Fatalf("not enforced: %v", d.Off())
	}
	// Comparisons are bounded by argument bytes × enum size: a long
	// argument is refused by size before any comparison.
	long := `{"tags":[` + strings.Repeat(`"nope",`, 20000) + `"nope"]}`
	if _, env := check(t, d, long); env == nil || env.Fields[0].Rule != "size" {
		t.Errorf("long arguments against a huge enum: %+v", env)
	}
	_, env := check(t, d, `{"tags":["nope"]}`)
	if env == nil {
		t.Fatal("a value outside the enum accepted")
	}
	if f := env.Fields[0]; len(f.Allowed) > 20 || !strings.Contains(f.Message, "(20000 in all)") {
		t.Errorf("the allowed values are not bounded: %d, %q", len(f.Allowed), f.Message)
	}
}

// TestDeclaredPatternsAreLinear: the library compiles patterns with Go's
// regexp, RE2, whose matching is linear in the input: a pattern that
// backtracks catastrophically elsewhere ((a+)+$ on "aaaa…!") costs one
// pass here. The test checks the answer, not the time: RE2 has no
// backtracking to time.
func TestDeclaredPatternsAreLinear(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}`))
	_, env := check(t, d, `{"s":"`+strings.Repeat("a", 100000)+`!"}`)
	if env == nil || rules(env) != "s:pattern" {
		t.Fatalf("catastrophic pattern: %+v", env)
	}
	if _, env := check(t, d, `{"s":"`+strings.Repeat("a", 100000)+`"}`); env != nil {
		t.Errorf("a matching value refused: %+v", env.Fields)
	}
}

func TestDeclaredDoesNotModifyTheDecodedArguments(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	decoded := map[string]any{"path": "a", "limit": "5"}
	out, err := d.Check(context.Background(), []byte(`{"path":"a","limit":"5"}`), decoded, nil)
	if err != nil || !strings.Contains(string(out), `"limit":5`) {
		t.Fatalf("Check = %s, %v", out, err)
	}
	if decoded["limit"] != "5" {
		t.Errorf("the SDK's arguments were modified: %v", decoded)
	}
}

func slogDebug(l *logs) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestDeclaredTrivialSchemasAreNotChecked(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`, `{"type":"object","description":"none","properties":null}`,
		`{"properties":{},"required":[],"type":"object"}`} { // mcp.NewTool's default, as mcp-go lists it
		if d := declared.New("t", []byte(schema)); d.Enforced() || d.Off() != nil {
			t.Errorf("%s: enforced %v, off %v", schema, d.Enforced(), d.Off())
		}
	}
	if d := declared.New("t", []byte(`{"type":"object","additionalProperties":false}`)); !d.Enforced() {
		t.Error("additionalProperties: false is something to check")
	}
	if d := declared.New("t", []byte(`{"type":"object","properties":{},"required":["id"]}`)); !d.Enforced() {
		t.Error("a required member is something to check")
	}
}

func BenchmarkDeclaredCheck(b *testing.B) {
	d := declared.New("read_file", []byte(fileSchema))
	raw := []byte(`{"path":"docs/README.md","mode":"text","limit":50,"follow":false}`)
	doc := map[string]any{"path": "docs/README.md", "mode": "text", "limit": float64(50), "follow": false}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Check(ctx, raw, doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeclaredCheckRaw is the go-sdk front's case: the arguments
// arrive as JSON text only.
func BenchmarkDeclaredCheckRaw(b *testing.B) {
	d := declared.New("read_file", []byte(fileSchema))
	raw := []byte(`{"path":"docs/README.md","mode":"text","limit":50,"follow":false}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Check(ctx, raw, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDeclaredSuccessAllocations: a valid call of a flat declared schema
// costs no allocation, whether the SDK hands over decoded arguments
// (mcp-go) or JSON text only (go-sdk).
func TestDeclaredSuccessAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	d := declared.New("read_file", []byte(fileSchema))
	raw := []byte(`{"path":"docs/README.md","mode":"text","limit":50,"follow":false}`)
	doc := map[string]any{"path": "docs/README.md", "mode": "text", "limit": float64(50), "follow": false}
	ctx := context.Background()
	for name, fn := range map[string]func(){
		"decoded": func() { _, _ = d.Check(ctx, raw, doc, nil) },
		"raw":     func() { _, _ = d.Check(ctx, raw, nil, nil) },
	} {
		if n := testing.AllocsPerRun(200, fn); n != 0 {
			t.Errorf("%s: %v allocations per valid call, want 0", name, n)
		}
	}
}

// TestDeclaredNeverFetches: a remote $ref or $schema is never fetched,
// even from a server that would answer.
func TestDeclaredNeverFetches(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/a.json"}}}`,
		`{"$schema":"` + srv.URL + `/meta.json","type":"object","properties":{"a":{"type":"string"}}}`,
	} {
		d := declared.New("t", []byte(schema))
		if d.Enforced() {
			t.Errorf("%s: enforced", schema)
		}
		_, _ = d.Check(context.Background(), []byte(`{"a":1}`), nil, nil)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the validator fetched %d times", n)
	}
}

// TestDeclaredNullOptionalMembersAreAbsent: strict hosts fill optional
// members with null; a required one sent as null, or a nested null, is
// still refused.
func TestDeclaredNullOptionalMembersAreAbsent(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	got, env := check(t, d, `{"path":"a","mode":null,"limit":null}`)
	if env != nil || got != `{"path":"a"}` {
		t.Errorf("null optional members: %s, %+v", got, env)
	}
	if _, env := check(t, d, `{"path":null}`); env == nil || rules(env) != "path:type" {
		t.Errorf("a required member sent as null: %+v", env)
	}
}
