package validate_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

// maxFailureBytes is the bound the README states for a validation failure
// of SearchArgs on the wire, whatever the size of the request. The
// envelope's text travels as a JSON string in the result's content, so
// this is the bound on that string; the JSON-RPC frame around it is a few
// dozen bytes more (the fronts' fuzz tests hold the whole response to it).
const maxFailureBytes = 24<<10 - 512

type tagArgs struct {
	Query string   `json:"query" validate:"required"`
	Tags  []string `json:"tags,omitempty" validate:"omitempty,dive,min=2"`
}

// Every failure is bounded: an 800 KB array of wrong elements, of
// elements failing a rule, a 1 MiB object of unknown members, deep paths
// of long keys. Each gets at most MaxFieldErrors entries and one more
// counting the rest, in at most maxFailureBytes.
func TestFailuresAreBounded(t *testing.T) {
	t.Parallel()
	search := validate.NewBinder[SearchArgs]()
	tags := validate.NewBinder[tagArgs]()
	n := scale(4_000, 400_000)
	ones := "[" + strings.Repeat("1,", n) + "1]"
	as := `["` + strings.Repeat(`a","`, n/2) + `a"]`
	var unknown strings.Builder
	unknown.WriteString(`{"query":"abc"`)
	for i := 0; unknown.Len() < scale(64<<10, 1<<20-64); i++ {
		fmt.Fprintf(&unknown, `,"k%07d":1`, i)
	}
	unknown.WriteString("}")
	var deep strings.Builder
	deep.WriteString(`{"query":"abc"`)
	for i := range 2001 {
		fmt.Fprintf(&deep, `,"%04d%s":1`, i, strings.Repeat("k", 200))
	}
	deep.WriteString("}")
	for _, c := range []struct {
		name, args string
		tags       bool
		more       int
	}{
		{"an array of wrong types (800 KB in full)", `{"query":"abc","filters":` + ones + `}`, false, n + 1 - validate.MaxFieldErrors},
		{"an array failing a rule (800 KB in full)", `{"query":"abc","tags":` + as + `}`, true, n/2 + 1 - validate.MaxFieldErrors},
		{"unknown members (1 MiB in full)", unknown.String(), false, -1},
		{"long keys", deep.String(), false, 2001 - validate.MaxFieldErrors},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o outcome
			if c.tags {
				o = call(t, tags, c.args)
			} else {
				o = call(t, search, c.args)
			}
			env := invalid(t, o)
			wire, _ := json.Marshal(o.raw)
			if len(wire) > maxFailureBytes {
				t.Errorf("a %d-byte request got a %d-byte failure, more than %d", len(c.args), len(wire), maxFailureBytes)
			}
			if len(env.Fields) != validate.MaxFieldErrors+1 {
				t.Fatalf("%d field errors, want %d and one counting the rest", len(env.Fields), validate.MaxFieldErrors)
			}
			last := env.Fields[len(env.Fields)-1]
			if last.Rule != "more" {
				t.Fatalf("last entry %+v, want rule more", last)
			}
			if n, _ := strconv.Atoi(last.Param); c.more >= 0 && n != c.more || n <= 0 {
				t.Errorf("more = %s, want %d", last.Param, c.more)
			}
			if want := fmt.Sprintf("%s more invalid arguments are not listed; fix these first", last.Param); last.Message != want {
				t.Errorf("message %q", last.Message)
			}
			t.Logf("%d-byte request: %d-byte failure", len(c.args), len(wire))
		})
	}
}

// Exactly MaxFieldErrors violations are all listed, one more is counted.
func TestFieldErrorCap(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[tagArgs]()
	list := func(n int) string {
		return `{"query":"abc","tags":["` + strings.Repeat(`a","`, n-1) + `a"]}`
	}
	env := invalid(t, call(t, b, list(validate.MaxFieldErrors)))
	if len(env.Fields) != validate.MaxFieldErrors || env.Fields[len(env.Fields)-1].Rule == "more" {
		t.Fatalf("%d fields: %s", len(env.Fields), rules(env))
	}
	env = invalid(t, call(t, b, list(validate.MaxFieldErrors+1)))
	if len(env.Fields) != validate.MaxFieldErrors+1 || env.Fields[validate.MaxFieldErrors].Param != "1" {
		t.Fatalf("%d fields: %+v", len(env.Fields), env.Fields[len(env.Fields)-1])
	}
	// Binding errors and validation errors share the cap.
	b2 := validate.NewBinder[SearchArgs]()
	var unknown strings.Builder
	unknown.WriteString(`{"query":"ab"`)
	for i := range validate.MaxFieldErrors - 1 {
		fmt.Fprintf(&unknown, `,"u%02d":1`, i)
	}
	env = invalid(t, call(t, b2, unknown.String()+`}`))
	if len(env.Fields) != validate.MaxFieldErrors || env.Fields[len(env.Fields)-1].Field != "query" {
		t.Fatalf("%d fields: %s", len(env.Fields), rules(env))
	}
	env = invalid(t, call(t, b2, unknown.String()+`,"limit":0.5}`))
	if len(env.Fields) != validate.MaxFieldErrors+1 || env.Fields[validate.MaxFieldErrors].Param != "1" {
		t.Fatalf("%d fields: %s", len(env.Fields), rules(env))
	}
}

// Paths and messages are clipped, so that each entry stays small.
func TestLongPathsAreClipped(t *testing.T) {
	t.Parallel()
	type args struct {
		M map[string]map[string]map[string]int `json:"m" validate:"dive,dive,dive,max=1"`
	}
	k := strings.Repeat("k", 60)
	o := call(t, validate.NewBinder[args](), `{"m":{"`+k+`1":{"`+k+`2":{"`+k+`3":5}}}}`)
	f := invalid(t, o).Fields[0]
	// 160 bytes, the ellipsis's three included.
	if n := len([]rune(f.Field)); n != 158 || len(f.Field) != 160 || !strings.HasSuffix(f.Field, "…") || !strings.HasPrefix(f.Field, "m."+k+"1."+k+"2.") {
		t.Errorf("path of %d runes: %q", n, f.Field)
	}
	if n := len(f.Message); n > 400 {
		t.Errorf("message of %d runes", n)
	}
}

// Numbers are read in linear time, before any big-number arithmetic: a
// million digits (in full size) are an answer, not a stall, and integers
// written with fractions or exponents are still integers.
func TestHugeNumbers(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	digits := scale(1<<12, 1<<20-40)
	million := strings.Repeat("9", digits)
	for args, want := range map[string]string{
		`{"query":"abc","limit":` + million + `}`:                                                        "max",
		`{"query":"abc","limit":-` + million + `}`:                                                       "min",
		`{"query":"abc","limit":1.` + strings.Repeat("0", digits) + `}`:                                  "",
		`{"query":"abc","limit":1.` + strings.Repeat("0", digits/2) + `1}`:                               "type",
		`{"query":"abc","limit":5` + strings.Repeat("0", digits/2) + "e-" + strconv.Itoa(digits/2) + "}": "",
		`{"query":"abc","limit":1e` + strings.Repeat("9", digits/2) + `}`:                                "max",
		`{"query":"abc","limit":0.` + strings.Repeat("0", digits/2) + `e99999999999}`:                    "",
		`{"query":"abc","max_price":` + million + `}`:                                                    "type",
		`{"query":"abc","max_price":0.` + million + `}`:                                                  "",
	} {
		o := call(t, b, args)
		if want == "" {
			if !o.ok {
				t.Errorf("%.60s…: %s", args, o.raw)
			}
			continue
		}
		if env := invalid(t, o); env.Fields[0].Rule != want {
			t.Errorf("%.60s…: %+v, want rule %s", args, env.Fields[0], want)
		}
	}
}

// WithMaxDepth(n) takes n levels of objects and arrays, the arguments'
// own included, and refuses n+1, on the fast and the slow path alike.
func TestMaxDepthBoundary(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs](validate.WithMaxDepth(3))
	for args, ok := range map[string]bool{
		`{"query":"agents","extra":{"a":{}}}`:            true,
		`{"query":"agents","extra":[[]]}`:                true,
		`{"query":"agents","extra":{"a":[]}}`:            true,
		`{"query":"agents","filters":[{"name":"ab"}]}`:   true,
		`{"query":"agents","extra":{"a":{"b":{}}}}`:      false,
		`{"query":"agents","extra":[[[]]]}`:              false,
		`{"query":"agents","extra":[{"a":[]}]}`:          false,
		`{"query":"agents","zzz":{"a":{"b":{}}}}`:        false,
		`{"query":"agents","filters":[{"name":["ab"]}]}`: false,
		`{"query":"agents","filters":[{"name":[[]]}]}`:   false,
	} {
		o := call(t, b, args)
		if o.ok != ok {
			t.Errorf("%s: %+v, want ok %v", args, o, ok)
			continue
		}
		if !ok && args != `{"query":"agents","filters":[{"name":["ab"]}]}` {
			if f := invalid(t, o).Fields[0]; f.Rule != "depth" || f.Param != "3" || len(o.env.Fields) != 1 {
				t.Errorf("%s: %+v", args, o.env.Fields)
			}
		}
	}
}

// The smallest bounds work: one level, one byte.
func TestSmallestBounds(t *testing.T) {
	t.Parallel()
	type none struct {
		A any `json:"a,omitempty"`
	}
	b := validate.NewBinder[none](validate.WithMaxDepth(1))
	if o := call(t, b, `{"a":1}`); !o.ok {
		t.Errorf("one level: %s", o.raw)
	}
	if o := call(t, b, `{"a":[]}`); o.ok || o.env.Fields[0].Rule != "depth" || o.env.Fields[0].Param != "1" {
		t.Errorf("two levels: %+v", o)
	}
	b = validate.NewBinder[none](validate.WithMaxBytes(2))
	if o := call(t, b, `{}`); !o.ok {
		t.Errorf("two bytes: %s", o.raw)
	}
	if o := call(t, b, `{ }`); o.ok || o.env.Fields[0].Rule != "size" || o.env.Fields[0].Message != "the arguments are 3 bytes of JSON, more than the 2 this server accepts" {
		t.Errorf("three bytes: %+v", o)
	}
	validate.WithMaxBytes(1)
}
