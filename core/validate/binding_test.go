package validate_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

func TestSeedCases(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()

	t.Run("category ai/ml suggests AI/ML", func(t *testing.T) {
		for _, sent := range []string{"ai/ml", "ai-ml", "AI ML", "Ai_Ml"} {
			env := invalid(t, call(t, b, `{"query":"agents","category":"`+sent+`"}`))
			f := field(t, env, "category")
			if f.Rule != "oneof" || f.Suggestion != "AI/ML" {
				t.Errorf("%q: got %+v, want rule oneof with suggestion AI/ML", sent, f)
			}
			if !reflect.DeepEqual(f.Allowed, []string{"AI/ML", "Data", "Web/API", "Security"}) {
				t.Errorf("allowed = %q", f.Allowed)
			}
		}
	})
	t.Run("limit 9999 is over max 50", func(t *testing.T) {
		env := invalid(t, call(t, b, `{"query":"agents","limit":9999}`))
		f := field(t, env, "limit")
		if f.Rule != "max" || f.Param != "50" || f.Message != "limit must be at most 50 (got 9999)" {
			t.Errorf("got %+v", f)
		}
	})
	t.Run("card_id path traversal fails the pattern", func(t *testing.T) {
		env := invalid(t, call(t, b, `{"query":"agents","card_id":"../../etc/passwd"}`))
		f := field(t, env, "card_id")
		if f.Rule != "pattern" || f.Param != `^(?:[A-Z]{2}-[0-9]{4})$` {
			t.Errorf("got %+v", f)
		}
	})
	t.Run("valid call binds", func(t *testing.T) {
		o := call(t, b, `{"query":"agents","category":"AI/ML","limit":50,"card_id":"AB-1234"}`)
		if !o.ok || o.args != `{"query":"agents","category":"AI/ML","limit":50,"card_id":"AB-1234"}` {
			t.Fatalf("got %+v", o)
		}
	})
}

func TestBindingFailures(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs](validate.WithMaxBytes(4096), validate.WithMaxDepth(8))
	cases := []struct {
		name, args, path, rule, param string
	}{
		{"wrong type", `{"query":"agents","limit":"ten"}`, "limit", "type", "integer"},
		{"not an integer", `{"query":"agents","limit":2.5}`, "limit", "type", "integer"},
		{"int overflow", `{"query":"agents","limit":1e30}`, "limit", "max", "9223372036854775807"},
		{"null for a string", `{"query":null}`, "query", "type", "string"},
		{"object for a string", `{"query":{"a":1}}`, "query", "type", "string"},
		{"unknown member", `{"query":"agents","qeury":"x"}`, "qeury", "unknown", ""},
		{"case-variant member", `{"Query":"agents"}`, "Query", "unknown", ""},
		{"escaped key", `{"quer\u0079":"agents","x\u0079":1}`, "xy", "unknown", ""},
		{"array arguments", `[1,2]`, "", "type", "object"},
		{"string arguments", `"query"`, "", "type", "object"},
		{"number arguments", `5`, "", "type", "object"},
		{"too deep", `{"query":"agents","extra":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, "", "depth", "8"},
		{"too deep under unknown", `{"zzz":` + strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20) + `}`, "", "depth", "8"},
		{"too large", `{"query":"` + strings.Repeat("a", 5000) + `"}`, "", "size", "4096"},
		{"nested path", `{"query":"agents","filters":[{"name":"ok"},{"name":"ok","op":"like"},{"op":"eq"}]}`, "filters[2].name", "required", ""},
		{"nested wrong type", `{"query":"agents","filters":[{"name":"ok"},{"name":7}]}`, "filters[1].name", "type", "string"},
		{"nested unknown", `{"query":"agents","filters":[{"name":"ok","value":1}]}`, "filters[0].value", "unknown", ""},
		{"pointer bound", `{"query":"agents","max_price":-1}`, "max_price", "gte", "0"},
		{"missing required", `{}`, "query", "required", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := invalid(t, call(t, b, c.args))
			f := field(t, env, c.path)
			if f.Rule != c.rule || f.Param != c.param {
				t.Errorf("got %+v, want rule %q param %q", f, c.rule, c.param)
			}
			if f.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestAllViolationsAtOnce(t *testing.T) {
	t.Parallel()
	env := invalid(t, call(t, validate.NewBinder[SearchArgs](),
		`{"query":"ab","category":"ai/ml","limit":"ten","card_id":"x","filters":[{"name":"a1","op":"like"}],"bogus":true}`))
	want := "bogus:unknown limit:type query:min category:oneof card_id:pattern filters[0].name:alpha filters[0].op:oneof"
	if got := rules(env); got != want {
		t.Fatalf("fields = %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(env.Message, "7 invalid arguments: ") {
		t.Errorf("message = %q", env.Message)
	}
}

// Integers written with a fraction or an exponent are integers, as JSON
// Schema says; anything else is refused, huge exponents included (which
// mcp-go's own parser refuses before any layer, but the go-sdk's does
// not, and an in-process caller can send).
func TestIntegerForms(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	for _, n := range []string{"5", "5.0", "5e0", "0.5e1", "50", "0e999999999", "-0", "0.0"} {
		if o := call(t, b, `{"query":"agents","limit":`+n+`}`); !o.ok {
			t.Errorf("limit %s: %s", n, o.raw)
		}
	}
	for _, n := range []string{"5.5", "51", "-1", "1e-999999999", "123456789012345678901234567890", "1e999999999", "-1e999999999"} {
		invalid(t, call(t, b, `{"query":"agents","limit":`+n+`}`))
	}
}

// Absent or null arguments are an empty object, for every form an SDK
// hands them over in.
func TestMissingAndNullArguments(t *testing.T) {
	t.Parallel()
	type none struct {
		Verbose bool `json:"verbose,omitempty"`
	}
	b := validate.NewBinder[none]()
	for _, args := range []any{nil, json.RawMessage(nil), json.RawMessage("null"), json.RawMessage("{}"), json.RawMessage(" { } "),
		json.RawMessage(" null "), []byte(nil), []byte(`{"verbose":true}`), map[string]any{"verbose": true}, map[string]any(nil)} {
		if o := callWith(t, b, args, nil); !o.ok {
			t.Errorf("arguments %#v: %s", args, o.raw)
		}
	}
	// Required members are reported missing from absent arguments.
	if env := invalid(t, callWith(t, validate.NewBinder[SearchArgs](), nil, nil)); rules(env) != "query:required" {
		t.Errorf("fields %s", rules(env))
	}
	// A value encoding/json cannot write is not an argument object.
	env := invalid(t, callWith(t, b, map[string]any{"f": func() {}}, nil))
	if f := env.Fields[0]; f.Field != "" || f.Rule != "type" || f.Param != "object" {
		t.Errorf("got %+v", f)
	}
}

// Decoded arguments (what mcp-go hands over when it has parsed them) bind
// as their JSON does.
func TestDecodedArgumentsBindAsTheirJSON(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	o := callWith(t, b, map[string]any{"query": "agents", "limit": 5}, nil)
	if !o.ok || o.args != `{"query":"agents","limit":5}` {
		t.Fatalf("got %+v", o)
	}
	env := invalid(t, callWith(t, b, map[string]any{"query": "ab"}, nil))
	if f := field(t, env, "query"); f.Rule != "min" {
		t.Errorf("got %+v", f)
	}
}

// One null for a required member is one field error, not a type error
// and a "required" for the same path.
func TestOneErrorPerPath(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	for args, want := range map[string]string{
		`{"query":null}`:                     "query:type",
		`{}`:                                 "query:required",
		`{"query":null,"filters":[null,{}]}`: "filters[0]:type filters[1].name:required query:type",
		`{"query":"abc","filters":[{"name":null,"op":"eq"}]}`: "filters[0].name:type",
	} {
		if got := rules(invalid(t, call(t, b, args))); got != want {
			t.Errorf("%s: fields %v, want %v", args, got, want)
		}
	}
}

// A wrong element keeps its place, so that the paths of the elements
// after it stay right and nothing else is reported for it.
func TestWrongElementsKeepTheirPlace(t *testing.T) {
	t.Parallel()
	type args struct {
		Grid  [][]int          `json:"grid,omitempty" validate:"omitempty,dive,dive,max=5"`
		Maps  []map[string]int `json:"maps,omitempty" validate:"omitempty,dive,dive,max=5"`
		IDs   []int            `json:"ids,omitempty" validate:"omitempty,dive,max=5"`
		Names []string         `json:"names,omitempty" validate:"omitempty,dive,max=2"`
		Flags []bool           `json:"flags,omitempty"`
		Opt   []*int           `json:"opt,omitempty" validate:"omitempty,dive,omitempty,max=5"`
		Items []Filter         `json:"items,omitempty" validate:"omitempty,dive"`
	}
	b := validate.NewBinder[args]()
	for doc, want := range map[string]string{
		`{"grid":[[1],"x",[9]]}`:                    "grid[1]:type grid[2][0]:max",
		`{"maps":[{"a":1},3,{"b":9}]}`:              "maps[1]:type maps[2].b:max",
		`{"ids":[1,"x",9]}`:                         "ids[1]:type ids[2]:max",
		`{"names":["a",1,"abc"]}`:                   "names[1]:type names[2]:max",
		`{"flags":[true,1,false]}`:                  "flags[1]:type",
		`{"opt":[1,"x",9,null]}`:                    "opt[1]:type opt[2]:max",
		`{"items":[{"name":"ab"},7,{"name":"a1"}]}`: "items[1]:type items[2].name:alpha",
	} {
		if got := rules(invalid(t, call(t, b, doc))); got != want {
			t.Errorf("%s: fields %s, want %s", doc, got, want)
		}
	}
}

// Malformed JSON, which only an in-process caller or a lax SDK can hand
// over, is one "json" field error that says where.
func TestMalformedArguments(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	for _, args := range []string{`{"query":`, `{"query":"agents"} {}`, `{"query":"agents"}]`, `{"query" "x"}`, `{"query":"a`, `{"query":tru}`, `{"query":"agents",}`, `{"a":1 "b":2}`, "{\"query\":\"a\x01\"}", `{"filters":[1 2]}`, `{"filters":[1,`, `{1:2}`, `{"query":nul}`, `{"query":-}`,
		// Cut off after each token, where a scanner that reads one byte
		// too far would panic.
		`{`, `{ `, `{"query"`, `{"query" `, `{"query":`, `{"query":"agents"`, `{"query":"agents" `, `{"query":"agents",`, `{"query":"agents", `,
		`{"filters":[`, `{"filters":[ `, `{"filters":[{}`, `{"filters":[{},`, `{"filters":[{} `, `{"query":t`, `{"query":nul`, `{"limit":1`, `{"limit":-`, `{"filters":[1`, `{"filters":[1.5e3`} {
		o := call(t, b, args)
		if o.ok {
			t.Errorf("%s: bound as %s", args, o.args)
			continue
		}
		env := invalid(t, o)
		if f := env.Fields[0]; f.Rule != "json" || f.Field != "" || !strings.HasPrefix(f.Message, "the arguments are not valid JSON: ") {
			t.Errorf("%s: got %+v", args, env.Fields)
		}
	}
	env := invalid(t, call(t, b, `{"query":"agents"} {}`))
	if f := env.Fields[0]; f.Message != "the arguments are not valid JSON: unexpected data after the arguments object" {
		t.Errorf("trailing data: %q", f.Message)
	}
	env = invalid(t, call(t, b, `{"query" "x"}`))
	if f := env.Fields[0]; !strings.Contains(f.Message, "(at byte 10)") {
		t.Errorf("a syntax error says where: %q", f.Message)
	}
	for args, kind := range map[string]string{`[1]`: "an array", `"x"`: "a string", `true`: "a boolean", `false`: "a boolean", `-1`: "a number", `7`: "a number", `}`: "valid JSON"} {
		env := invalid(t, call(t, b, args))
		if f := env.Fields[0]; f.Message != "the arguments must be a JSON object, not "+kind {
			t.Errorf("%s: %q", args, f.Message)
		}
	}
}

func TestRuntimeOnlyIsStated(t *testing.T) {
	t.Parallel()
	type args struct {
		Code string   `json:"code" jsonschema:"Product code" validate:"required,startswith=SKU-"`
		Tags []string `json:"tags,omitempty" validate:"dive,lowercase"`
	}
	got := validate.RuntimeOnly[args]()
	if !reflect.DeepEqual(got, []string{"code: startswith=SKU-", "tags[]: lowercase"}) {
		t.Fatalf("RuntimeOnly = %q", got)
	}
	schema := string(validate.Schema[args]())
	if !strings.Contains(schema, `"description":"Product code Also checked when called: startswith=SKU-."`) {
		t.Fatalf("schema: %s", schema)
	}
	// Still checked when called, with the tag's own words.
	env := invalid(t, call(t, validate.NewBinder[args](), `{"code":"ABC","tags":["Up"]}`))
	if got := rules(env); got != "code:startswith tags[0]:lowercase" {
		t.Fatalf("fields %s", got)
	}
	if m := field(t, env, "code").Message; m != `code failed the startswith=SKU- check (got "ABC")` {
		t.Errorf("message %q", m)
	}
	if m := field(t, env, "tags[0]").Message; m != `tags[0] failed the lowercase check (got "Up")` {
		t.Errorf("message %q", m)
	}
}

// A validator/v10 validation that panics is contained: Bind returns an
// error that is no validation_error (the front renders it as an
// internal_error with an incident), and the panic's text is redacted.
func TestPanickingValidatorIsContained(t *testing.T) {
	t.Parallel()
	v := validate.New(validator.New())
	if err := v.Engine().RegisterValidation("explode", func(fl validator.FieldLevel) bool {
		if fl.Field().String() == "boom" {
			panic("password=hunter2 at /srv/app/main.go:12")
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	type args struct {
		Word string `json:"word" validate:"explode"`
	}
	b := validate.NewBinder[args](validate.WithValidator(v))
	if o := call(t, b, `{"word":"fine"}`); !o.ok {
		t.Fatalf("got %s", o.raw)
	}
	_, err := b.Bind(context.Background(), tool, json.RawMessage(`{"word":"boom"}`), nil)
	if err == nil || envelope.CodeOf(err) == envelope.ValidationError {
		t.Fatalf("want an unclassified error, got %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "validator/v10 panicked") {
		t.Fatalf("err = %q", err)
	}
	o := call(t, b, `{"word":"boom"}`)
	if o.env.ErrorType != envelope.InternalError || o.env.IncidentID == "" || strings.Contains(o.raw, "hunter2") || strings.Contains(o.raw, "main.go") {
		t.Fatalf("want an internal_error with an incident and nothing of the panic: %s", o.raw)
	}
	if got := validate.RuntimeOnly[args](validate.WithValidator(v)); !reflect.DeepEqual(got, []string{"word: explode"}) {
		t.Fatalf("RuntimeOnly = %q", got)
	}
}

// A validator/v10 failure that is not about a field (here: a struct-level
// rule reporting none) is an error of its own, not an empty
// validation_error.
type structLevel struct {
	A int `json:"a"`
}

func TestValidatorErrorThatIsNoFieldError(t *testing.T) {
	t.Parallel()
	v := validate.New(validator.New())
	v.Engine().RegisterStructValidation(func(sl validator.StructLevel) {
		if sl.Current().Interface().(structLevel).A == 7 {
			sl.ReportError(sl.Current().Interface(), "", "", "seven", "")
		}
	}, structLevel{})
	b := validate.NewBinder[structLevel](validate.WithValidator(v))
	if o := call(t, b, `{"a":1}`); !o.ok {
		t.Fatalf("got %s", o.raw)
	}
	o := call(t, b, `{"a":7}`)
	if o.ok || o.env.ErrorType != envelope.ValidationError {
		t.Fatalf("got %+v", o)
	}
	// A struct-level error is reported at the struct: the arguments.
	if f := o.env.Fields[0]; f.Field != "" || f.Rule != "seven" || f.Message != "the arguments failed the seven check" {
		t.Errorf("got %+v", o.env.Fields)
	}
	var inv *validator.InvalidValidationError
	_, err := validate.NewBinder[struct{}](validate.WithValidator(v)).Bind(context.Background(), tool, nil, nil)
	if err != nil && errors.As(err, &inv) {
		t.Fatalf("an empty struct validates: %v", err)
	}
}

func TestConstructionPanics(t *testing.T) {
	t.Parallel()
	type undefinedTag struct {
		A string `json:"a" validate:"no_such_tag"`
	}
	type enumTag struct {
		A string `json:"a" jsonschema:"enum=x,enum=y"`
	}
	type byteField struct {
		A []byte `json:"a"`
	}
	type recursive struct {
		Children []recursive `json:"children"`
	}
	type recursiveEmbedded struct {
		//lint:ignore U1000 the embedded field is what makes the type recursive
		*recursiveEmbedded
		A int `json:"a"`
	}
	type badParam struct {
		A int `json:"a" validate:"max=lots"`
	}
	type badUintParam struct {
		A uint `json:"a" validate:"min=-1"`
	}
	type badFloatParam struct {
		A float64 `json:"a" validate:"lt=inf"`
	}
	type badLenParam struct {
		A string `json:"a" validate:"max=x"`
	}
	type patternOnInt struct {
		A int `json:"a" validate:"card_id"`
	}
	type intKeys struct {
		A map[int]string `json:"a"`
	}
	type iface struct {
		A error `json:"a"`
	}
	type channel struct {
		A chan int `json:"a"`
	}
	type dup struct {
		Dup
		B string `json:"a"`
	}
	type stringOpt struct {
		A int `json:"a,string"`
	}
	type unexportedPtr struct {
		*unexported
	}
	cases := map[string]func(){
		"non-struct":              func() { validate.NewBinder[string]() },
		"non-struct output":       func() { validate.NewOutput[[]string]() },
		"non-struct schema":       func() { validate.Schema[int]() },
		"undefined tag":           func() { validate.NewBinder[undefinedTag]() },
		"jsonschema enum":         func() { validate.Schema[enumTag]() },
		"[]byte":                  func() { validate.NewBinder[byteField]() },
		"recursive":               func() { validate.Schema[recursive]() },
		"recursive embedded":      func() { validate.Schema[recursiveEmbedded]() },
		"bad param":               func() { validate.Schema[badParam]() },
		"bad uint param":          func() { validate.Schema[badUintParam]() },
		"bad float param":         func() { validate.Schema[badFloatParam]() },
		"bad length param":        func() { validate.Schema[badLenParam]() },
		"pattern on int":          func() { validate.Schema[patternOnInt]() },
		"int keys":                func() { validate.Schema[intKeys]() },
		"non-empty interface":     func() { validate.Schema[iface]() },
		"channel":                 func() { validate.Schema[channel]() },
		"duplicate JSON name":     func() { validate.Schema[dup]() },
		"json string option":      func() { validate.Schema[stringOpt]() },
		"unexported embedded ptr": func() { validate.Schema[unexportedPtr]() },
		"depth 0":                 func() { validate.WithMaxDepth(0) },
		"bytes 0":                 func() { validate.WithMaxBytes(0) },
		"nil validator":           func() { validate.WithValidator(nil) },
		"nil logger":              func() { validate.WithLogger(nil) },
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				p := recover()
				if p == nil {
					t.Fatal("no panic")
				}
				if s, ok := p.(string); !ok || !strings.HasPrefix(s, "validate: ") {
					t.Errorf("panic %v does not say it is validate's", p)
				}
			}()
			fn()
		})
	}
}

type unexported struct{ X int }

type Dup struct {
	A string `json:"a"`
}

// One Binder serves concurrent calls; registering a pattern re-derives
// the plan without a race.
func TestConcurrentBinds(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	type args struct {
		Query string `json:"query" validate:"required,min=3"`
		Code  string `json:"code,omitempty" validate:"omitempty,alpha"`
	}
	b := validate.NewBinder[args](validate.WithValidator(v))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				if i == 0 && j == 25 {
					v.RegisterPattern("late", `[a-z]+`)
				}
				if j%2 == 0 {
					if o := call(t, b, `{"query":"agents"}`); !o.ok {
						t.Errorf("got %s", o.raw)
					}
				} else if o := call(t, b, `{"query":"ab","code":"1"}`); o.ok || rules(o.env) != "query:min code:alpha" {
					t.Errorf("got %+v", o)
				}
			}
		})
	}
	wg.Wait()
}
