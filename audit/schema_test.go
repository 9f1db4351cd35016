package audit_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/audit"
)

// Rule C reads a schema the way a validator applies it: constraints inside
// anyOf, oneOf and allOf, type arrays with null, local $refs and const all
// count, so that the shapes pydantic, FastMCP, zod and mcpguard's validate
// emit for optional fields are judged by what they admit.
func TestSchemaCombinators(t *testing.T) {
	defs := `"$defs":{"Status":{"type":"string","enum":["open","closed"]},` +
		`"Filter":{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string","maxLength":5}}},` +
		`"Loose":{"type":"object","properties":{"q":{"type":"string","maxLength":5}}}}`
	for _, tc := range []struct {
		name, prop, schema string
		want               []string // C checks reported on the property or below it
	}{
		{"pydantic Optional enum", "status", `{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}],"default":null}`, nil},
		{"validate omitempty enum", "status", `{"type":"string","anyOf":[{"const":""},{"enum":["open","closed"]}]}`, nil},
		{"validate omitempty bounds", "limit", `{"type":"integer","anyOf":[{"const":0},{"minimum":1,"maximum":100}]}`, nil},
		{"one bound inside anyOf", "limit", `{"type":"integer","anyOf":[{"const":0},{"minimum":1}]}`, []string{audit.CheckBounds}},
		{"one bound, other branch null", "limit", `{"anyOf":[{"type":"integer","maximum":9},{"type":"null"}]}`, []string{audit.CheckBounds}},
		{"type array with null", "note", `{"type":["string","null"],"maxLength":10}`, nil},
		{"type array with null, no maxLength", "note", `{"type":["string","null"]}`, []string{audit.CheckMaxLength}},
		{"$ref to an enum", "status", `{"$ref":"#/$defs/Status"}`, nil},
		{"$ref to an enum, optional", "status", `{"anyOf":[{"$ref":"#/$defs/Status"},{"type":"null"}]}`, nil},
		{"const", "kind", `{"const":"fixed"}`, nil},
		{"enum in oneOf", "status", `{"oneOf":[{"const":"open"},{"const":"closed"}]}`, nil},
		{"allOf adds the bounds", "limit", `{"allOf":[{"type":"integer"},{"minimum":1,"maximum":5}]}`, nil},
		{"allOf with one bound", "limit", `{"allOf":[{"type":"integer"},{"minimum":1}]}`, []string{audit.CheckBounds}},
		{"pattern or uuid", "order_id", `{"oneOf":[{"type":"string","pattern":"^o_[0-9]+$"},{"type":"string","format":"uuid"}]}`, nil},
		{"pattern or free", "order_id", `{"oneOf":[{"type":"string","pattern":"^o_[0-9]+$"},{"type":"string","maxLength":9}]}`, []string{audit.CheckPattern}},
		{"one branch without maxLength", "note", `{"anyOf":[{"type":"string","maxLength":5},{"type":"string"}]}`, []string{audit.CheckMaxLength}},
		{"optional object", "filter", `{"anyOf":[{"$ref":"#/$defs/Filter"},{"type":"null"}]}`, nil},
		{"optional open object", "filter", `{"anyOf":[{"$ref":"#/$defs/Loose"},{"type":"null"}]}`, []string{audit.CheckAdditional}},
		{"untyped", "x", `{"description":"anything"}`, []string{audit.CheckType}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := fmt.Sprintf(`{"name":"t_tool","description":"A tool. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false,%s,"properties":{%q:%s}}}`,
				defs, tc.prop, tc.schema)
			r := audit.Tools(tools(def))
			var got []string
			for _, f := range r.Findings {
				if f.Rule == audit.RuleSchemas && f.Severity >= audit.Warning {
					got = append(got, f.Check)
				}
			}
			assert.ElementsMatch(t, tc.want, got, text(r))
		})
	}
}
