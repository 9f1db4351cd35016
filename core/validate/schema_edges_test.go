package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type edgeInner struct {
	X int `json:"x"`
}

// edgeArgs holds tags whose schema sits on an edge: a bound equal to the
// type's own range, an omitempty member whose zero fails its rules, a size
// that cannot be negative, unique with and without a parameter, pointers
// inside arrays and maps.
type edgeArgs struct {
	Low   int8            `json:"low" validate:"omitempty,min=-128,max=-1"`
	High  int8            `json:"high" validate:"omitempty,min=1,max=127"`
	Small uint8           `json:"small" validate:"omitempty,min=0,max=9,ne=0"`
	Phone string          `json:"phone" validate:"omitempty,e164"`
	Empty string          `json:"empty" validate:"gt=-1,lt=0"`
	Set   []string        `json:"set" validate:"unique"`
	ByKey []string        `json:"by_key" validate:"unique=x"`
	Ptrs  []*int          `json:"ptrs" validate:"dive,min=1"`
	Opt   []*int          `json:"opt"`
	Objs  []*edgeInner    `json:"objs"`
	Map   map[string]*int `json:"map" validate:"dive,min=1"`
}

type edgeResult struct {
	Min   *int       `json:"min" validate:"min=1"`
	Maybe *int       `json:"maybe"`
	Inner *edgeInner `json:"inner"`
}

// TestSchemaStatesTagsAtTheirEdges: the JSON Schema derived for each
// member, as a client reads it in tools/list, says exactly what the
// binding accepts at these edges.
func TestSchemaStatesTagsAtTheirEdges(t *testing.T) {
	t.Parallel()
	inner := `{"type":["object","null"],"properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}`
	for name, c := range map[string]struct {
		schema json.RawMessage
		want   map[string]string
	}{
		"input": {validate.Schema[edgeArgs](), map[string]string{
			// The range of int8 is implied by the alternatives: no "minimum":-128 beside them.
			"low":    `{"type":"integer","anyOf":[{"const":0},{"minimum":-128,"maximum":-1}]}`,
			"high":   `{"type":"integer","anyOf":[{"const":0},{"minimum":1,"maximum":127}]}`,
			"small":  `{"type":"integer","anyOf":[{"const":0},{"minimum":0,"maximum":9,"not":{"const":0}}]}`,
			"phone":  `{"type":"string","description":"Also checked when called: e164."}`,
			"empty":  `{"type":"string","minLength":0,"description":"Also checked when called: lt=0."}`,
			"set":    `{"type":"array","items":{"type":"string"},"uniqueItems":true}`,
			"by_key": `{"type":"array","items":{"type":"string"},"description":"Also checked when called: unique=x."}`,
			"ptrs":   `{"type":"array","items":{"type":"integer","minimum":1}}`,
			"opt":    `{"type":"array","items":{"type":["integer","null"]}}`,
			"objs":   `{"type":"array","items":` + inner + `}`,
			"map":    `{"type":"object","additionalProperties":{"type":"integer","minimum":1}}`,
		}},
		"output": {validate.OutputSchemaOf[edgeResult](), map[string]string{
			"min":   `{"type":"integer","minimum":1}`, // validator/v10 fails a nil pointer on min
			"maybe": `{"type":["integer","null"]}`,
			"inner": inner,
		}},
	} {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(c.schema, &s); err != nil {
			t.Fatal(err)
		}
		for member, want := range c.want {
			if got := compact(t, s.Properties[member]); got != compact(t, json.RawMessage(want)) {
				t.Errorf("%s %s:\n got %s\nwant %s", name, member, got, want)
			}
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
