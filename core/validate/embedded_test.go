package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type Paging struct {
	Page int `json:"page,omitempty" validate:"omitempty,min=1,max=100"`
	Size int `json:"size" validate:"max=50"`
}

type Owner struct {
	Owner string `json:"owner,omitempty" validate:"omitempty,alpha"`
}

type listArgs struct {
	*Paging
	Owner
	Query string          `json:"query,omitempty" validate:"omitempty,max=10"`
	Raw   json.RawMessage `json:"raw,omitempty"`
}

// Embedded structs are flattened as encoding/json flattens them, by
// pointer as by value: one schema, and the same checks whether or not the
// agent sent a member of the embedded pointer.
func TestEmbeddedPointerStructs(t *testing.T) {
	t.Parallel()
	got := string(validate.Schema[listArgs]())
	want := `{"type":"object","properties":{"page":{"type":"integer","minimum":1,"maximum":100},"size":{"type":"integer","maximum":50},"owner":{"type":"string","pattern":"^[a-zA-Z]+$"},"query":{"type":"string","maxLength":10},"raw":{}},"required":["size"],"additionalProperties":false}`
	if got != want {
		t.Fatalf("schema\n%s\nwant\n%s", got, want)
	}
	b := validate.NewBinder[listArgs]()
	for args, want := range map[string]string{
		`{"size":5}`: `{"size":5}`,
		`{"size":5,"page":2,"raw":[1,{"a":null}]}`: `{"page":2,"size":5,"raw":[1,{"a":null}]}`,
		`{}`:                                 "size:required",
		`{"size":51}`:                        "size:max",
		`{"size":1,"page":101,"owner":"x1"}`: "page:max owner:alpha",
	} {
		o := call(t, b, args)
		if want[0] == '{' {
			if !o.ok || o.args != want {
				t.Errorf("%s: %+v, want %s", args, o, want)
			}
			continue
		}
		if fields := rules(invalid(t, o)); fields != want {
			t.Errorf("%s: %s, want %s", args, fields, want)
		}
	}
}

type Window struct {
	From int `json:"from,omitempty" validate:"min=1"`
}

type windowed struct {
	*Window
	Name string `json:"name,omitempty"`
}

type windows struct {
	List   []windowed          `json:"list" validate:"dive"`
	ByName map[string]windowed `json:"by_name" validate:"dive"`
	One    *windowed           `json:"one"`
	Nested windowed            `json:"nested"`
}

// An embedded pointer the agent sent nothing for is checked like an
// embedded value, in elements, map values and pointers too: its rules see
// the zero, not a skipped struct.
func TestEmbeddedPointerLeftOutIsChecked(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[windows]()
	env := invalid(t, call(t, b, `{"list":[{},{"from":2}],"by_name":{"a":{}},"one":{},"nested":{"name":"x"}}`))
	if got := rules(env); got != "list[0].from:min by_name.a.from:min one.from:min nested.from:min" {
		t.Fatalf("fields %s", got)
	}
	if f := field(t, env, "one.from"); f.Message != "one.from is required and must be at least 1" {
		t.Errorf("got %+v", f)
	}
	if o := call(t, b, `{"list":[{"from":2}],"by_name":{"a":{"from":3}},"one":{"from":1},"nested":{"from":4}}`); !o.ok {
		t.Fatalf("got %s", o.raw)
	}
	// A nil pointer to a struct holding one stays nil.
	if o := call(t, b, `{"list":[],"by_name":{},"one":null,"nested":{"from":1}}`); !o.ok || o.args != `{"list":[],"by_name":{},"one":null,"nested":{"from":1}}` {
		t.Fatalf("got %+v", o)
	}
	top := validate.NewBinder[windowed]()
	if env := invalid(t, call(t, top, `{}`)); rules(env) != "from:min" {
		t.Fatalf("fields %s", rules(env))
	}
}
