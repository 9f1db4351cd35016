package declared_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// membersEnv is Members' answer to raw as a client reads it, nil when it
// accepts raw.
func membersEnv(t *testing.T, raw string) *envelope.Envelope {
	t.Helper()
	err := declared.Members([]byte(raw))
	if err == nil {
		return nil
	}
	e := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: tool, Args: []byte(raw)}, err)
	got, ok := envelope.Parse(string(e.Marshal()))
	if !ok || got.ErrorType != envelope.ValidationError {
		t.Fatalf("not a validation_error: %s", e.Marshal())
	}
	return got
}

// Text that is not one JSON value is refused as such, by Members and by
// a Checker alike, before anything decodes it.
func TestDeclaredRefusesWhatIsNotJSON(t *testing.T) {
	t.Parallel()
	d := declared.New(tool, []byte(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`))
	for _, raw := range []string{
		`{"a":tru}`, `{"a":fals}`, `{"a":nul}`, `{"a":x}`,
		"{\"a\":\"x\x01\"}", `{"a":"x`, `{"a":"x\`,
		`{"a" "x"}`, `{"a"`, `{"a":"x" "b":1}`, `{"a":"x",}`, `{a:1}`, `{"a":1`, `{`,
		`[1 2]`, `[1,]`, `[`, `{"a":"x"} {}`,
	} {
		if env := membersEnv(t, raw); env == nil || rules(env) != ":json" || env.Fields[0].Message != "the arguments are not valid JSON" {
			t.Errorf("Members(%q): %+v, want the arguments refused as not JSON", raw, env)
		}
		if _, env := check(t, d, raw); rules(env) != ":json" {
			t.Errorf("Check(%q): %+v, want the arguments refused as not JSON", raw, env)
		}
	}
}

// Arguments nested deeper than DefaultMaxDepth are refused by Members,
// and deeper than WithMaxDepth by a Checker, naming the bound.
func TestDeclaredRefusesArgumentsNestedTooDeep(t *testing.T) {
	t.Parallel()
	deep := `{"a":` + strings.Repeat("[", declared.DefaultMaxDepth) + strings.Repeat("]", declared.DefaultMaxDepth) + `}`
	env := membersEnv(t, deep)
	want := fmt.Sprintf("the arguments nest objects and arrays more than %d levels deep", declared.DefaultMaxDepth)
	if env == nil || rules(env) != ":depth" || env.Fields[0].Param != fmt.Sprint(declared.DefaultMaxDepth) || env.Fields[0].Message != want {
		t.Errorf("Members of %d levels: %+v", declared.DefaultMaxDepth+1, env)
	}
	if env := membersEnv(t, `{"a":`+strings.Repeat("[", declared.DefaultMaxDepth-1)+strings.Repeat("]", declared.DefaultMaxDepth-1)+`}`); env != nil {
		t.Errorf("Members of %d levels: %+v", declared.DefaultMaxDepth, env.Fields)
	}
	d := declared.New(tool, []byte(`{"type":"object","properties":{"a":{}}}`), declared.WithMaxDepth(3))
	if _, env := check(t, d, `{"a":{"b":[1]}}`); env != nil {
		t.Errorf("3 levels under WithMaxDepth(3): %+v", env.Fields)
	}
	if _, env := check(t, d, `{"a":{"b":[[1]]}}`); env == nil || rules(env) != ":depth" || env.Fields[0].Param != "3" {
		t.Errorf("4 levels under WithMaxDepth(3): %+v", env)
	}
}

// The member check reads spaced text, and names a member inside an array
// element by its index.
func TestDeclaredMembersInSpacedTextAndArrays(t *testing.T) {
	t.Parallel()
	env := membersEnv(t, " {\n\t\"a\" : [ 1 , { \"k\" : true , \"K\" : false } ] ,\r\n \"b\" : null } ")
	if env == nil || rules(env) != "a[1].K:duplicate" ||
		env.Fields[0].Message != "a[1].K and a[1].k differ only in letter case, and a reader that ignores case takes one for the other: send one" {
		t.Errorf("a case pair in an array element: %+v", env)
	}
	if env := membersEnv(t, ` { "a" : [ 1 , { "k" : true } , "x\"y" , -1.5e3 ] , "b" : null } `); env != nil {
		t.Errorf("clean spaced arguments: %+v", env.Fields)
	}
}

// However many members readers would read differently, the client reads
// MaxFieldErrors of them and a count of the rest, from Members and from a
// Checker, whose case variants of declared properties count alike.
func TestDeclaredCountsAmbiguousMembersPastTheBound(t *testing.T) {
	t.Parallel()
	n := declared.MaxFieldErrors + 5
	var pairs, variants []string
	for i := range n {
		pairs = append(pairs, fmt.Sprintf(`"m%02d":1,"M%02d":2`, i, i))
		variants = append(variants, fmt.Sprintf(`"P%02d":1`, i))
	}
	env := membersEnv(t, "{"+strings.Join(pairs, ",")+"}")
	if env == nil || len(env.Fields) != declared.MaxFieldErrors+1 || env.Fields[declared.MaxFieldErrors].Rule != "more" ||
		env.Fields[declared.MaxFieldErrors].Param != "5" {
		t.Fatalf("%d case pairs: %+v", n, env)
	}
	d := declared.New(tool, []byte(schemaOf(n, "integer", false)))
	_, env = check(t, d, "{"+strings.Join(variants, ",")+"}")
	if env == nil || len(env.Fields) != declared.MaxFieldErrors+1 || env.Fields[0].Rule != "unknown" ||
		env.Fields[0].Suggestion != "p00" || env.Fields[declared.MaxFieldErrors].Param != "5" {
		t.Fatalf("%d case variants of declared properties: %+v", n, env)
	}
	if !strings.HasPrefix(env.Message, fmt.Sprintf("%d invalid arguments: ", n)) {
		t.Errorf("the summary does not count them all: %q", env.Message)
	}
}

// Arguments an in-process caller hands over as JSON text in place of the
// decoded value, json.RawMessage or []byte, are checked as text.
func TestDeclaredReadsDecodedText(t *testing.T) {
	t.Parallel()
	d := declared.New(tool, []byte(fileSchema))
	for _, decoded := range []any{json.RawMessage(`{"path":5}`), []byte(`{"path":5}`)} {
		if env := checkErr(t, d, nil, decoded); env == nil || rules(env) != "path:type" {
			t.Errorf("%T: %+v", decoded, env)
		}
	}
	if env := checkErr(t, d, nil, []byte(`{"path":"a"}`)); env != nil {
		t.Errorf("valid []byte arguments: %+v", env.Fields)
	}
}

// Options that could only misconfigure the check panic when they are
// built, never at a call.
func TestDeclaredOptionsPanicOnNonsense(t *testing.T) {
	t.Parallel()
	for name, build := range map[string]func(){
		"WithMaxDepth(0)":  func() { declared.WithMaxDepth(0) },
		"WithMaxDepth(-1)": func() { declared.WithMaxDepth(-1) },
		"WithMaxBytes(0)":  func() { declared.WithMaxBytes(0) },
		"WithLogger(nil)":  func() { declared.WithLogger(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			build()
		}()
	}
	// A nil Option is ignored.
	if d := declared.New(tool, []byte(fileSchema), nil); !d.Enforced() {
		t.Errorf("a nil option turned the check off: %v", d.Off())
	}
}

// A member named as a property declared anywhere in the schema, but in
// another letter case, is refused as the binder refuses a case variant of
// a field: under patternProperties, dependentSchemas, a schema for extra
// members, and a draft-07 items schema or tuple.
func TestDeclaredFindsCaseVariantsOfPropertiesDeclaredAnywhere(t *testing.T) {
	t.Parallel()
	const path = `{"type":"object","properties":{"path":{"type":"string"}}}`
	cases := []struct{ name, schema, args, field string }{
		{"patternProperties", `{"type":"object","patternProperties":{"^f_":` + path + `}}`, `{"f_1":{"PATH":"a"}}`, "f_1.PATH"},
		{"dependentSchemas", `{"type":"object","properties":{"a":{}},"dependentSchemas":{"a":` + path + `}}`, `{"a":1,"PATH":"x"}`, "PATH"},
		{"additionalProperties", `{"type":"object","additionalProperties":` + path + `}`, `{"x":{"Path":"a"}}`, "x.Path"},
		{"draft-07 items", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"l":{"items":` + path + `}}}`,
			`{"l":[{"pATH":"a"}]}`, "l[0].pATH"},
		{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"l":{"items":[{},` + path + `]}}}`,
			`{"l":[1,{"PAth":"a"}]}`, "l[1].PAth"},
	}
	for _, c := range cases {
		d := declared.New(tool, []byte(c.schema))
		if !d.Enforced() {
			t.Errorf("%s: not enforced: %v", c.name, d.Off())
			continue
		}
		_, env := check(t, d, c.args)
		if env == nil || rules(env) != c.field+":unknown" || env.Fields[0].Suggestion != "path" {
			t.Errorf("%s: %+v, want %s refused as a case variant of path", c.name, env, c.field)
		}
	}
}

// A schema with text after its JSON value is not enforced, and says so.
func TestDeclaredSchemaWithTrailingText(t *testing.T) {
	t.Parallel()
	d := declared.New(tool, []byte(`{"type":"object","properties":{"a":{"type":"string"}}} {}`))
	if d.Enforced() || d.Off() == nil {
		t.Fatalf("enforced: %v", d.Off())
	}
	if _, env := check(t, d, `{"a":1}`); env != nil {
		t.Errorf("a call failed because of the server's schema: %+v", env.Fields)
	}
}
