package validate_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type depthArgs struct {
	Map    map[string]int `json:"map,omitempty"`
	Struct struct {
		V int `json:"v"`
	} `json:"struct,omitempty"`
	List []int `json:"list,omitempty"`
	Any  any   `json:"any,omitempty"`
	N    int   `json:"n,omitempty"`
}

// WithMaxDepth bounds how deep objects and arrays nest, not the values in
// the deepest ones: with a bound of 2, scalars at depth 2 bind on the
// slow path (here taken for n's type error) as on the fast one, and only
// n is reported.
func TestSlowPathBindsScalarsAtTheDepthBound(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[depthArgs](validate.WithMaxDepth(2))
	deep := `"map":{"k":1},"struct":{"v":2},"list":[3],"any":{"k":"s"}`
	if o := call(t, b, `{`+deep+`,"n":4}`); !o.ok || o.args != `{"map":{"k":1},"struct":{"v":2},"list":[3],"any":{"k":"s"},"n":4}` {
		t.Fatalf("fast path: %+v", o)
	}
	env := invalid(t, call(t, b, `{`+deep+`,"n":"x"}`))
	if len(env.Fields) != 1 || env.Fields[0].Field != "n" || env.Fields[0].Message != "n must be an integer, not a string" {
		t.Fatalf("want n's type error alone, got %s", rules(env))
	}
	// One level more is refused, whichever path.
	env = invalid(t, call(t, b, `{"any":{"k":[]}}`))
	if f := env.Fields[0]; f.Rule != "depth" || f.Param != "2" {
		t.Fatalf("got %+v", env.Fields)
	}
	// Nesting past a syntax error, which stops the scan, is never walked:
	// the arguments are not JSON.
	env = invalid(t, call(t, b, `{"n":1,,"any":[[[[1]]]]}`))
	if len(env.Fields) != 1 || env.Fields[0].Rule != "json" {
		t.Fatalf("got %s", rules(env))
	}
}

// A number that encoding/json cannot hold in a float64 is refused
// wherever it sits in a value of type any, down to the depth bound, and
// named by its path.
func TestOutOfRangeNumbersInAnyAtTheDepthBound(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[depthArgs](validate.WithMaxDepth(2))
	for _, c := range []struct{ args, path string }{
		{`{"any":1e400}`, "any"},
		{`{"any":{"k":1e400}}`, "any.k"},
		{`{"any":[1,-1e400]}`, "any[1]"},
	} {
		env := invalid(t, call(t, b, c.args))
		if len(env.Fields) != 1 {
			t.Fatalf("%s: got %s", c.args, rules(env))
		}
		if f := env.Fields[0]; f.Field != c.path || f.Rule != "type" || f.Message != c.path+" is out of range for a number" {
			t.Errorf("%s: got %+v", c.args, f)
		}
	}
}
