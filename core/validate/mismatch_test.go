package validate_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/validate"
)

type searchFiles struct {
	Path    string `json:"path" validate:"required"`
	Pattern string `json:"pattern" validate:"required"`
	Limit   int    `json:"limit,omitempty" validate:"omitempty,min=1"`
	Filter  struct {
		Ext string `json:"ext" validate:"required"`
	} `json:"filter"`
	Tags []struct {
		Name string `json:"name" validate:"required"`
	} `json:"tags,omitempty"`
}

func TestSchemaMismatch(t *testing.T) {
	t.Parallel()
	derived := validate.Schema[searchFiles]()
	require.NoError(t, validate.SchemaMismatch(derived, derived), "a schema agrees with itself")
	for _, tc := range []struct {
		name, declared string
		want           []string // each must appear; nil: no mismatch
	}{
		{"agrees, extra keywords and optional member left out", `{"type":"object","description":"search","properties":{
			"path":{"type":"string","description":"root"},"pattern":{"type":"string"},
			"filter":{"type":"object","properties":{"ext":{"type":"string"}},"required":["ext"]}},
			"required":["path","pattern","filter"]}`, nil},
		{"the issue's filesystem tool: pattern not listed", `{"type":"object","properties":{"path":{"type":"string"},
			"filter":{"type":"object","properties":{"ext":{"type":"string"}},"required":["ext"]}},"required":["path","filter"]}`,
			[]string{"pattern is required by the type but not declared"}},
		{"required member declared optional", `{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},
			"filter":{"type":"object","properties":{"ext":{"type":"string"}},"required":["ext"]}},"required":["path","filter"]}`,
			[]string{"pattern is required by the type but declared optional"}},
		{"declared member the type lacks", `{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"recursive":{"type":"boolean"},
			"filter":{"type":"object","properties":{"ext":{"type":"string"}},"required":["ext"]}},"required":["path","pattern","filter"]}`,
			[]string{"recursive is declared but the type has no such member"}},
		{"wrong types, nested", `{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"limit":{"type":"number"},
			"filter":{"type":"object","properties":{"ext":{"type":"string"},"size":{"type":"integer"}},"required":["ext"]},
			"tags":{"type":["null","array"],"items":{"type":"object","properties":{"name":{"type":["string","boolean"]}},"required":["name"]}}},
			"required":["path","pattern","filter"]}`,
			[]string{`limit is declared "number" where the type takes "integer"`, "filter.size is declared but the type has no such member",
				`tags[].name is declared ["string","boolean"] where the type takes "string"`}},
		{"an any-object schema", `{"type":"object"}`, []string{"path is required by the type but not declared", "filter is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := validate.SchemaMismatch([]byte(tc.declared), derived)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	assert.Error(t, validate.SchemaMismatch([]byte(`not json`), derived))
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 200) + `{}` + strings.Repeat(`}}`, 200)
	assert.NotPanics(t, func() { _ = validate.SchemaMismatch([]byte(deep), []byte(deep)) })
}

// TestSchemaMismatchDescendsThirtyTwoLevels: a disagreement 32 levels
// down is found; below that the walk stops, so that a schema nested
// without end costs a bounded walk.
func TestSchemaMismatchDescendsThirtyTwoLevels(t *testing.T) {
	t.Parallel()
	nest := func(levels int, leaf string) []byte {
		return []byte(strings.Repeat(`{"type":"object","properties":{"a":`, levels) + leaf + strings.Repeat(`},"required":["a"]}`, levels))
	}
	for levels, found := range map[int]bool{1: true, 32: true, 33: false} {
		err := validate.SchemaMismatch(nest(levels, `{"type":"string"}`), nest(levels, `{"type":"integer"}`))
		if want := strings.Repeat("a.", levels-1) + `a is declared "string" where the type takes "integer"`; found != (err != nil && strings.Contains(err.Error(), want)) {
			t.Errorf("%d levels: %v", levels, err)
		}
	}
}

// TestSchemaMismatchTakesAnIntegerForANumber: a member declared
// "integer" where the type takes any number agrees (every integer is a
// number); one declared "number" where the type takes an integer does not.
func TestSchemaMismatchTakesAnIntegerForANumber(t *testing.T) {
	t.Parallel()
	schema := func(typ string) []byte {
		return []byte(`{"type":"object","properties":{"n":{"type":"` + typ + `"}}}`)
	}
	if err := validate.SchemaMismatch(schema("integer"), schema("number")); err != nil {
		t.Errorf("integer declared for a number: %v", err)
	}
	if err := validate.SchemaMismatch(schema("number"), schema("integer")); err == nil || !strings.Contains(err.Error(), `n is declared "number" where the type takes "integer"`) {
		t.Errorf("number declared for an integer: %v", err)
	}
}
