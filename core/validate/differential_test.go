package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// The differential test: the derived schema, compiled by
// santhosh-tekuri/jsonschema/v6 (what mcp-go's WithInputSchemaValidation
// uses), and Binder[T] (what validate.Args and gosdk.AddTool bind
// with; "Args" below) must agree on every argument object, valid or not,
// with the two deliberate differences the mcp-go front's package doc
// states. The validator is a test-only requirement of the core module:
// it is mcp-go's, and go-sdk users never build it.
//
//   - every object the schema accepts, Args accepts, except one holding a
//     number that the field's 64-bit Go type cannot hold (the schema
//     leaves that bound out as noise) or that fails a bound only once
//     rounded to the Go type (1e-400 is 0 to a float), and except
//     failures of the runtime-only tags that RuntimeOnly lists and the
//     property's description names;
//   - every object Args accepts, the schema accepts once the optional
//     members sent as null or as their zero value are removed.
//
// Objects are a valid baseline with every field in turn replaced by every
// value of a pool of edge cases (nulls and zeros included) or removed,
// plus random multi-field mutations and unknown members.

type diffItem struct {
	Name string `json:"name" validate:"required,max=4"`
	Qty  int    `json:"qty,omitempty" validate:"omitempty,min=1"`
}

type diffStrings struct {
	Req    string  `json:"req" validate:"required"`
	MinMax string  `json:"mm,omitempty" validate:"omitempty,min=2,max=5"`
	Len    string  `json:"len,omitempty" validate:"omitempty,len=3"`
	GtLt   string  `json:"gtlt,omitempty" validate:"omitempty,gt=1,lt=4"`
	Eq     string  `json:"eq,omitempty" validate:"omitempty,eq=yes"`
	Ne     string  `json:"ne" validate:"ne=no"`
	OneOf  string  `json:"oneof,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API'"`
	Card   string  `json:"card,omitempty" validate:"omitempty,card_id"`
	Alpha  string  `json:"alpha,omitempty" validate:"omitempty,alpha"`
	Alnum  string  `json:"alnum,omitempty" validate:"omitempty,alphanum"`
	Numstr string  `json:"numeric,omitempty" validate:"omitempty,numeric"`
	Digits string  `json:"number,omitempty" validate:"omitempty,number"`
	Hex    string  `json:"hex,omitempty" validate:"omitempty,hexadecimal"`
	UUID   string  `json:"uuid,omitempty" validate:"omitempty,uuid"`
	NoOmit string  `json:"noomit" validate:"min=2"`
	Ptr    *string `json:"ptr,omitempty" validate:"omitempty,min=3"`
	PtrReq *string `json:"ptrreq" validate:"required"`
	Plain  string  `json:"plain"`
}

var diffStringsBase = `{"req":"x","ne":"yes","noomit":"ab","ptrreq":"","plain":""}`

type diffNumbers struct {
	Int    int      `json:"int,omitempty" validate:"omitempty,min=1,max=50"`
	GtLt   int      `json:"gtlt" validate:"gt=0,lt=10"`
	I8     int8     `json:"i8"`
	U8     uint8    `json:"u8" validate:"max=200"`
	F      float64  `json:"f,omitempty" validate:"omitempty,gte=0.5,lte=99.5"`
	FGtLt  float64  `json:"fgtlt" validate:"gt=-1,lt=1"`
	Ne     int      `json:"ne" validate:"ne=7"`
	OneOf  int      `json:"oneof,omitempty" validate:"omitempty,oneof=1 2 3"`
	Len    int      `json:"len,omitempty" validate:"omitempty,len=4"`
	Eq     uint     `json:"eq,omitempty" validate:"omitempty,eq=9"`
	Req    int      `json:"req" validate:"required"`
	Bool   bool     `json:"b" validate:"required"`
	Plain  bool     `json:"plain"`
	PtrInt *int     `json:"pint,omitempty" validate:"omitempty,min=10"`
	PtrF   *float64 `json:"pf"`
}

var diffNumbersBase = `{"gtlt":5,"i8":0,"u8":0,"fgtlt":0,"ne":0,"req":-3,"b":true,"plain":false}`

type diffContainers struct {
	Tags    []string          `json:"tags,omitempty" validate:"omitempty,min=1,max=3,unique,dive,min=2"`
	IDs     []int             `json:"ids" validate:"required,dive,gt=0"`
	Len     []int             `json:"len,omitempty" validate:"omitempty,len=2"`
	Items   []diffItem        `json:"items,omitempty" validate:"omitempty,dive"`
	NoDive  []diffItem        `json:"nodive,omitempty"`
	Labels  map[string]string `json:"labels,omitempty" validate:"omitempty,max=2,dive,keys,alpha,endkeys,min=1"`
	Nested  diffItem          `json:"nested"`
	PNested *diffItem         `json:"pnested,omitempty"`
	Any     any               `json:"any,omitempty"`
	Uniq    []int             `json:"uniq,omitempty" validate:"unique"`
}

var diffContainersBase = `{"ids":[1],"nested":{"name":"ab"}}`

type diffFloats struct {
	F32    float32         `json:"f32"`
	PF32   *float32        `json:"pf32,omitempty" validate:"omitempty,gt=0"`
	F64    float64         `json:"f64,omitempty"`
	U64    uint64          `json:"u64,omitempty"`
	I64    int64           `json:"i64"`
	Dur    int64           `json:"dur,omitempty" validate:"omitempty,min=1"`
	I32    int32           `json:"i32,omitempty"`
	Raw    json.RawMessage `json:"raw,omitempty"`
	RawReq json.RawMessage `json:"rawreq"`
}

var diffFloatsBase = `{"f32":1.5,"i64":1,"rawreq":{"a":[1]}}`

type diffFormats struct {
	Email string    `json:"email,omitempty" validate:"omitempty,email"`
	URL   string    `json:"url,omitempty" validate:"omitempty,url"`
	Date  string    `json:"date,omitempty" validate:"omitempty,datetime=2006-01-02"`
	DT    string    `json:"dt,omitempty" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
	When  time.Time `json:"when"`
}

var diffFormatsBase = `{"when":"2024-01-02T03:04:05Z"}`

// pool holds edge values of every JSON type; each field meets all of them.
var pool = func() []string {
	strs := []string{"", "a", "ab", "abc", "abcd", "abcde", "abcdef", "yes", "no", "x",
		"AI/ML", "ai/ml", "Data", "Web/API", "AB-1234", "ab-1234", "AB-12345", "../../etc/passwd",
		"abc123", "ABC", "123", "-1.5", "+7", "1.", "0x1F", "1F", "g1",
		"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000",
		"a@b.co", "not an email", "https://example.com/x", "example.com",
		"2024-02-29", "2023-02-29", "2024-13-01", "2024-02-29T10:00:00Z", "2024-02-29T10:00:00+02:00", "2024-02-29 10:00:00",
		"a@b", "a@b.c", "@b.co", "a b@c.de", "a@-b.co", "http://", "http:", "https://x", "mailto:a@b.co", "/relative", "x:y",
		"2024-02-29t10:00:00z", "2024-02-29T10:00:00z", "2016-12-31T23:59:60Z", "2024-02-29T23:59:60Z", "2024-02-29T10:00:00+24:00",
		"2024-02-29T10:00:00.123456789Z", "2024-02-29T10:00:00-00:00", "0001-01-01T00:00:00Z",
		"ünï", "日本語", "ab\u0000c", strings.Repeat("z", 301)}
	var out []string
	for _, s := range strs {
		b, _ := json.Marshal(s)
		out = append(out, string(b))
	}
	out = append(out,
		"0", "1", "-1", "2", "3", "4", "7", "9", "10", "11", "49", "50", "51", "127", "128", "-128", "-129",
		"200", "201", "255", "256", "0.5", "0.4999", "99.5", "99.6", "-0.5", "0.99", "-0.99", "1.0", "5.0", "1e2", "2.5", "1e20", "-1e20",
		"0.0", "-0", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
		"1e309", "-1e309", "1.7976931348623157e308", "1.7976931348623159e308",
		"3.4028234663852886e+38", "3.4028235e38", "-3.4028235e38", "3.40282346638528859811704183484516925440e38", "3.5e38", "1e39",
		"1"+strings.Repeat("0", 400), "1."+strings.Repeat("0", 400), "0."+strings.Repeat("0", 400)+"1",
		"true", "false", "null",
		`[]`, `["ab"]`, `["ab","ab"]`, `["ab","cd","ef","gh"]`, `["a"]`, `[1,2]`, `[0]`, `[1]`, `[1,1]`, `[1.0,1]`, `["x"]`, `[null]`,
		`[{"name":"ab"}]`, `[{"name":""}]`, `[{"name":"abcde"}]`, `[{"name":"ab","qty":0}]`, `[{"name":"ab","qty":-1}]`, `[{"name":"ab","zz":1}]`, `[{"qty":1}]`,
		`{}`, `{"name":"ab"}`, `{"name":""}`, `{"name":"abcde"}`, `{"ab":"x"}`, `{"a1":"x"}`, `{"ab":""}`, `{"ab":"x","cd":"y","ef":"z"}`, `{"name":"ab","extra":1}`, `{"Name":"ab"}`,
	)
	return out
}()

func TestDifferentialSchemaVersusArgs(t *testing.T) {
	t.Parallel()
	var total, runs atomic.Int64
	t.Cleanup(func() {
		// With every subtest run (not a -run selection of one), the
		// property held on at least this many objects.
		if n, want := total.Load(), int64(scale(6000, 15000)); runs.Load() == 6 && n < want && !t.Failed() {
			t.Errorf("only %d objects compared, want at least %d", n, want)
		}
	})
	for name, run := range map[string]func(t *testing.T) int{
		"strings":    func(t *testing.T) int { return differential[diffStrings](t, diffStringsBase) },
		"numbers":    func(t *testing.T) int { return differential[diffNumbers](t, diffNumbersBase) },
		"containers": func(t *testing.T) int { return differential[diffContainers](t, diffContainersBase) },
		"formats":    func(t *testing.T) int { return differential[diffFormats](t, diffFormatsBase) },
		"floats":     func(t *testing.T) int { return differential[diffFloats](t, diffFloatsBase) },
		"search":     func(t *testing.T) int { return differential[SearchArgs](t, `{"query":"agents"}`) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			total.Add(int64(run(t)))
			runs.Add(1)
		})
	}
}

// differential compares the schema and Args on objects derived from base
// and returns how many.
func differential[T any](t *testing.T, base string) int {
	schema := compile(t, validate.Schema[T]())
	b := validate.NewBinder[T]()
	r := envelope.NewRenderer()
	argsVerdict := func(doc string) (bool, error) {
		args, err := b.Bind(context.Background(), "t", json.RawMessage(doc), nil)
		if err == nil && args == nil {
			t.Fatalf("%s: neither arguments nor an error", doc)
		}
		return err == nil, err
	}
	// The envelope of a refusal, rendered only where the verdicts differ.
	envelopeOf := func(doc string, err error) (*envelope.Envelope, string) {
		env := r.Error(context.Background(), envelope.Call{Tool: "t", Args: json.RawMessage(doc)}, err)
		return env, string(env.Marshal())
	}
	notes := validate.RuntimeOnly[T]()
	var rawSchema map[string]any
	if err := json.Unmarshal(validate.Schema[T](), &rawSchema); err != nil {
		t.Fatal(err)
	}
	var baseMap map[string]json.RawMessage
	if err := json.Unmarshal([]byte(base), &baseMap); err != nil {
		t.Fatal(err)
	}
	var docs []string
	render := func(m map[string]json.RawMessage) string {
		b, _ := json.Marshal(m)
		return string(b)
	}
	docs = append(docs, base)
	names := schemaProps(t, validate.Schema[T]())
	props, _ := rawSchema["properties"].(map[string]any)
	for _, name := range names {
		m := maps.Clone(baseMap)
		delete(m, name)
		docs = append(docs, render(m))
		for _, v := range poolFor(props[name]) {
			m := maps.Clone(baseMap)
			m[name] = json.RawMessage(v)
			docs = append(docs, render(m))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range scale(400, 3000) {
		m := maps.Clone(baseMap)
		for range 1 + rng.IntN(3) {
			m[names[rng.IntN(len(names))]] = json.RawMessage(pool[rng.IntN(len(pool))])
		}
		if rng.IntN(10) == 0 {
			m["unknown_"+fmt.Sprint(rng.IntN(3))] = json.RawMessage(pool[rng.IntN(len(pool))])
		}
		docs = append(docs, render(m))
	}
	valid, invalid, lenient, unheld := 0, 0, 0, 0
	for _, doc := range docs {
		schemaOK := schemaValid(t, schema, doc)
		argsOK, err := argsVerdict(doc)
		switch {
		case schemaOK && !argsOK:
			env, why := envelopeOf(doc, err)
			if !beyond64Bits(env) && !runtimeOnly(env, notes) && schemaValid(t, schema, rounded(t, doc)) {
				t.Errorf("the schema accepts what Args refuses: %s: %s", doc, why)
			}
			unheld++
		case argsOK && !schemaOK:
			var inst any
			if err := json.Unmarshal([]byte(doc), &inst); err != nil {
				t.Fatal(err)
			}
			stripped, _ := json.Marshal(withoutAbsent(inst, rawSchema))
			if !schemaValid(t, schema, string(stripped)) {
				t.Errorf("Args accepts what the schema refuses, beyond null or zero optional members: %s (as %s)", doc, stripped)
			}
			lenient++
		}
		if argsOK {
			valid++
		} else {
			invalid++
		}
	}
	t.Logf("%d objects: %d valid, %d invalid; %d accepted only as null/zero optional members, %d refused for a stated reason (64-bit range, rounding, runtime-only tag)", len(docs), valid, invalid, lenient, unheld)
	if valid < 30 || invalid < len(docs)/10 {
		t.Fatalf("too one-sided to prove anything: %d valid, %d invalid", valid, invalid)
	}
	return len(docs)
}

// poolFor is the pool a property meets: all of it in full size; by
// default the values of the property's own JSON type (where the edges
// are) and the first value of each other type, since a wrong type is
// refused alike whatever the value. A property of any type meets all.
func poolFor(prop any) []string {
	p, _ := prop.(map[string]any)
	types := map[string]bool{}
	switch ty := p["type"].(type) {
	case string:
		types[ty] = true
	case []any:
		for _, e := range ty {
			types[e.(string)] = true
		}
	}
	if full || len(types) == 0 {
		return pool
	}
	if types["integer"] {
		types["number"] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range pool {
		k := jsonKind(v)
		if types[k] || !seen[k] {
			out = append(out, v)
		}
		seen[k] = true
	}
	return out
}

// jsonKind is the JSON Schema type name of a pool value.
func jsonKind(v string) string {
	switch v[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

func schemaValid(t *testing.T, schema *jsonschema.Schema, doc string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return schema.Validate(inst) == nil
}

// runtimeOnly reports whether Args refused only for tags the schema says
// it cannot state (listed by RuntimeOnly, named in the description).
func runtimeOnly(env *envelope.Envelope, notes []string) bool {
	if env == nil || len(env.Fields) == 0 {
		return false
	}
	for _, f := range env.Fields {
		path := indexes.ReplaceAllString(f.Field, "[]")
		if !slices.ContainsFunc(notes, func(n string) bool {
			return n == path+": "+f.Rule || strings.HasPrefix(n, path+": "+f.Rule+"=")
		}) {
			return false
		}
	}
	return true
}

var indexes = regexp.MustCompile(`\[[0-9]+\]`)

// rounded is doc with every number a float64 can hold rounded to it, as
// the Go field receives it: a value like 1e-400 is 0 to the check.
func rounded(t *testing.T, doc string) string {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var round func(v any) any
	round = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if f, err := strconv.ParseFloat(string(x), 64); err == nil {
				return f
			}
		case []any:
			for i := range x {
				x[i] = round(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = round(x[k])
			}
		}
		return v
	}
	b, err := json.Marshal(round(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// beyond64Bits reports whether Args refused only numbers outside a 64-bit
// Go type's range, a bound the schema deliberately leaves out.
func beyond64Bits(env *envelope.Envelope) bool {
	if env == nil || len(env.Fields) == 0 {
		return false
	}
	for _, f := range env.Fields {
		switch {
		case f.Rule == "max" && (f.Param == "9223372036854775807" || f.Param == "18446744073709551615"):
		case f.Rule == "min" && f.Param == "-9223372036854775808":
		case f.Rule == "type" && f.Param == "number" && strings.Contains(f.Message, "out of range"):
		default:
			return false
		}
	}
	return true
}

// withoutAbsent removes, at every depth, the optional members (not listed
// in "required") whose value is null or the zero value of their schema
// type: the members Args treats as absent.
func withoutAbsent(v any, schema map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		req := map[string]bool{}
		if r, ok := schema["required"].([]any); ok {
			for _, n := range r {
				req[n.(string)] = true
			}
		}
		out := map[string]any{}
		for k, e := range x {
			ps, _ := props[k].(map[string]any)
			if props == nil {
				ps, _ = schema["additionalProperties"].(map[string]any)
			}
			if props != nil && ps != nil && !req[k] && isZero(e) {
				continue
			}
			out[k] = withoutAbsent(e, ps)
		}
		return out
	case []any:
		items, _ := schema["items"].(map[string]any)
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutAbsent(e, items)
		}
		return out
	}
	return v
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

func compile(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, raw)
	}
	return s
}

func schemaProps(t *testing.T, raw json.RawMessage) []string {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(s.Properties))
}
