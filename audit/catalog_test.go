package audit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/audit"
)

// The catalog is the one list of checks: every check in it is documented
// in the package doc and in docs/audit.md, has a known rule, and the IDs are
// unique.
func TestCatalogIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../docs/audit.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range audit.Checks() {
		assert.False(t, seen[c.ID], "duplicate %s", c.ID)
		seen[c.ID] = true
		assert.Contains(t, audit.AllRules(), c.Rule, c.ID)
		assert.True(t, strings.HasPrefix(c.ID, string(c.Rule)+"."), c.ID)
		assert.True(t, strings.Contains(string(doc), "//\t"+c.ID+" "), "doc.go lists %s", c.ID)
		assert.NotEmpty(t, c.Summary)
		assert.NotEmpty(t, c.Why)
		got, ok := audit.CheckByID(c.ID)
		assert.True(t, ok)
		assert.Equal(t, c, got)
	}
	for _, r := range audit.AllRules() {
		assert.NotEqual(t, "unknown rule", r.Title())
		assert.True(t, strings.Contains(string(readme), r.Title()), "docs/audit.md names rule %s: %s", r, r.Title())
	}
	for _, id := range []string{"C.network_ref", "D.jsonrpc_code", "D.structured_error", "E.missing", "E.read_only", "E.destructive",
		"F.hidden_unicode", "F.important", "F.instructions", "baseline.added", "baseline.removed", "baseline.changed",
		"list.changed", "list.order", "list.tokens"} {
		assert.True(t, strings.Contains(string(readme), id), "the rule table of docs/audit.md documents %s", id)
	}
}
