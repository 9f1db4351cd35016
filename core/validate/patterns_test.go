package validate_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

func TestRegisterPattern(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("order_id", `ORD-[0-9]{4,8}`)
	v.RegisterPattern("anchored", `^[a-z]+(?:-[a-z]+)*$`)
	if got, _ := v.Pattern("order_id"); got != `^(?:ORD-[0-9]{4,8})$` {
		t.Errorf("order_id = %q", got)
	}
	if got, _ := v.Pattern("anchored"); got != `^(?:^[a-z]+(?:-[a-z]+)*$)$` {
		t.Errorf("anchored = %q", got)
	}
	if _, ok := v.Pattern("nope"); ok {
		t.Error("unregistered pattern found")
	}
	// Anchoring is real: a match inside a longer value fails at runtime.
	type args struct {
		ID string `json:"id" validate:"order_id"`
	}
	schema := string(validate.Schema[args](validate.WithValidator(v)))
	if !strings.Contains(schema, `"pattern":"^(?:ORD-[0-9]{4,8})$"`) {
		t.Fatalf("schema: %s", schema)
	}
	if err := v.Engine().Struct(args{ID: "xORD-1234"}); err == nil {
		t.Error("unanchored match accepted")
	}
	if err := v.Engine().Struct(args{ID: "ORD-1234"}); err != nil {
		t.Errorf("valid id refused: %v", err)
	}
}

// "^a|b$" starts with ^ and ends with $ but is anchored only on one side
// of each alternative: it must be wrapped like any other expression, on
// both sides of the wire.
func TestRegisterPatternAnchorsAlternation(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("order_ref", `^ord-[0-9]{4}|ORD-[0-9]{4}$`)
	type args struct {
		Ref string `json:"ref" validate:"required,order_ref"`
	}
	raw := validate.Schema[args](validate.WithValidator(v))
	schema := compile(t, raw)
	b := validate.NewBinder[args](validate.WithValidator(v))
	for doc, want := range map[string]bool{
		`{"ref":"ord-1234"}`:                    true,
		`{"ref":"ORD-1234"}`:                    true,
		`{"ref":"ord-1234; DROP TABLE orders"}`: false,
		`{"ref":"x ORD-1234"}`:                  false,
	} {
		if got := schemaValid(t, schema, doc); got != want {
			t.Errorf("schema on %s: %v, want %v (%s)", doc, got, want, raw)
		}
		if o := call(t, b, doc); o.ok != want {
			t.Errorf("Bind on %s: %+v", doc, o)
		}
	}
}

// A constructor that registers its patterns may run twice, as every test
// suite makes it do; only a different expression is a conflict.
func TestRegisterPatternTwice(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("sku", `SKU-[0-9]{6}`)
	v.RegisterPattern("sku", `SKU-[0-9]{6}`)
	if got, _ := v.Pattern("sku"); got != `^(?:SKU-[0-9]{6})$` {
		t.Errorf("sku = %q", got)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "already registered") {
			t.Errorf("a different expression under the same name: panic %v", p)
		}
	}()
	v.RegisterPattern("sku", `SKU-[0-9]{7}`)
}

func TestRegisterPatternRefuses(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("taken", `a`)
	bad := map[string][2]string{
		"invalid RE2":     {"p1", `a(`},
		"dot":             {"p2", `a.b`},
		"\\s":             {"p3", `a\sb`},
		"inline flag":     {"p4", `(?i)abc`},
		"named group":     {"p5", `(?P<x>a)`},
		"lookahead":       {"p6", `a(?=b)`},
		"backreference":   {"p7", `(a)\1`},
		"\\p":             {"p8", `\pL`},
		"posix class":     {"p9", `[[:alpha:]]`},
		"\\b":             {"p10", `\bword`},
		"{,n}":            {"p11", `a{,3}`},
		"lone brace":      {"p12", `a{b`},
		"lone bracket":    {"p13", `a]`},
		"empty class":     {"p14", `[]a]`},
		"\\x{}":           {"p15", `\x{41}`},
		"\\A":             {"p16", `\Aabc`},
		"trailing \\":     {"p17", `abc\`},
		"empty":           {"p18", ``},
		"too many repeat": {"p19", `a{1001}`},
		"bad name":        {"Bad-Name", `a`},
		"baked-in name":   {"max", `a`},
		"duplicate":       {"taken", `b`},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("RegisterPattern(%q, %q) did not panic", c[0], c[1])
				}
			}()
			v.RegisterPattern(c[0], c[1])
		})
	}
}

// The portable subset really is read alike: every accepted expression
// compiles in Go, and the ones below, which RE2 and ECMA-262 read
// differently, are refused.
func TestPortableSubsetCompiles(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	for i, expr := range []string{`[A-Z]{2}-[0-9]{4}`, `\d+(?:\.\d+)?`, `[^\n/]+`, `a|b|c`, `\x41\/[\-]`, `[\w\-]{1,64}`, `(?:ab)*?c`} {
		name := "ok" + string(rune('a'+i))
		v.RegisterPattern(name, expr)
		got, _ := v.Pattern(name)
		if _, err := regexp.Compile(got); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}
