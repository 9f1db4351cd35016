package validate_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/validate"
)

func TestRegisterPattern(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("order_id", `ORD-[0-9]{4,8}`)
	v.RegisterPattern("anchored", `^[a-z]+(?:-[a-z]+)*$`)
	if got, _ := v.Pattern("order_id"); got != `^(?:ORD-[0-9]{4,8})$` {
		t.Errorf("order_id = %q", got)
	}
	if got, _ := v.Pattern("anchored"); got != `^[a-z]+(?:-[a-z]+)*$` {
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
