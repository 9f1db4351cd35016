package audit_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/audit/audittest"
)

func loadTools(t testing.TB, file string) []mcp.Tool {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var tools []mcp.Tool
	require.NoError(t, json.Unmarshal(b, &tools))
	return tools
}

// find returns the findings of check on tool at path ("" matches any path).
func find(r *audit.Report, check, tool, path string) []audit.Finding {
	var out []audit.Finding
	for _, f := range r.Findings {
		if f.Check == check && f.Tool == tool && (path == "" || f.Path == path) {
			out = append(out, f)
		}
	}
	return out
}

func one(t *testing.T, r *audit.Report, check, tool, path string, sev audit.Severity) audit.Finding {
	t.Helper()
	fs := find(r, check, tool, path)
	require.Lenf(t, fs, 1, "want one %s on %s %s; report:\n%s", check, tool, path, text(r))
	assert.Equal(t, sev, fs[0].Severity, "%s on %s %s", check, tool, path)
	assert.NotEmpty(t, fs[0].Message)
	assert.NotEmpty(t, fs[0].Fix)
	return fs[0]
}

func text(r *audit.Report) string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

// The v1.7.0-style list, modelled on the article's search_skills, produces
// every static finding the package documents, each where it belongs.
func TestV170ProducesEveryDocumentedFinding(t *testing.T) {
	r := audit.Tools(loadTools(t, "testdata/v1.7.0.json"))
	E, W, I := audit.Error, audit.Warning, audit.Info

	one(t, r, audit.CheckNamespace, "search_skills", "name", E)
	one(t, r, audit.CheckSnakeCase, "verifyTrust", "name", W)
	one(t, r, audit.CheckSnakeCase, "submit-skill", "name", W)
	one(t, r, audit.CheckDuplicate, "get_skill", "name", E)
	f := one(t, r, audit.CheckName, "skill stats", "name", E)
	assert.Contains(t, f.Fix, `"skill_stats"`)

	one(t, r, audit.CheckDescMissing, "verifyTrust", "description", E)
	one(t, r, audit.CheckDescLong, "skill stats", "description", W)
	one(t, r, audit.CheckDescWhen, "search_skills", "description", W)
	one(t, r, audit.CheckDescNext, "search_skills", "description", I)
	f = one(t, r, audit.CheckDescUnknownTool, "get_install_command", "description", E)
	assert.Contains(t, f.Message, `"search_skill"`)
	assert.Contains(t, f.Fix, `"search_skills"`)
	assert.Len(t, find(r, audit.CheckDescShort, "get_skill", "description"), 2, "both get_skill descriptions are short")

	one(t, r, audit.CheckRootType, "list_categories", "inputSchema", E)
	one(t, r, audit.CheckType, "verifyTrust", "inputSchema.properties.options", E)
	one(t, r, audit.CheckType, "submit-skill", "inputSchema.properties.tags.items", E)
	f = one(t, r, audit.CheckType, "submit-skill", "inputSchema.properties.manifest.properties.version", E)
	assert.Contains(t, f.Message, `"int"`)
	f = one(t, r, audit.CheckEnum, "search_skills", "inputSchema.properties.category", E)
	assert.Contains(t, f.Fix, `"enum": ["AI/ML", "Data", "Web/API", "Security", "DevOps", "Communication"]`)
	one(t, r, audit.CheckEnum, "get_install_command", "inputSchema.properties.status", W)
	one(t, r, audit.CheckPattern, "verifyTrust", "inputSchema.properties.card_id", W)
	f = one(t, r, audit.CheckBounds, "search_skills", "inputSchema.properties.limit", E)
	assert.Contains(t, f.Fix, `"maximum": 50`)
	one(t, r, audit.CheckBounds, "search_skills", "inputSchema.properties.max_price", W)
	one(t, r, audit.CheckMaxLength, "submit-skill", "inputSchema.properties.summary", E)
	one(t, r, audit.CheckMaxLength, "search_skills", "inputSchema.properties.query", W)
	one(t, r, audit.CheckMaxItems, "submit-skill", "inputSchema.properties.tags", W)
	one(t, r, audit.CheckAdditional, "search_skills", "inputSchema", W)
	one(t, r, audit.CheckAdditional, "submit-skill", "inputSchema.properties.manifest", W)

	// Every static check ID the package defines fired at least once.
	for _, check := range staticChecks {
		assert.NotEmptyf(t, r.WithCheck(check), "check %s never fired", check)
	}
	assert.True(t, r.Failed())
	assert.False(t, r.Perfect())
	for _, rule := range []audit.Rule{audit.RuleNames, audit.RuleDescriptions, audit.RuleSchemas} {
		require.NotNil(t, r.Scores.Rule(rule))
		assert.Less(t, r.Scores.Rule(rule).Percent, 50.0, "rule %s", rule)
	}
	assert.Nil(t, r.Scores.D, "rule D is not scored without a probe")
}

var staticChecks = []string{
	audit.CheckName, audit.CheckNamespace, audit.CheckSnakeCase, audit.CheckDuplicate,
	audit.CheckDescMissing, audit.CheckDescShort, audit.CheckDescLong, audit.CheckDescWhen,
	audit.CheckDescNext, audit.CheckDescUnknownTool,
	audit.CheckRootType, audit.CheckType, audit.CheckEnum, audit.CheckPattern, audit.CheckBounds,
	audit.CheckMaxLength, audit.CheckMaxItems, audit.CheckAdditional,
}

// The fixed v1.9.0-style counterpart produces no finding at all.
func TestV190IsClean(t *testing.T) {
	r := audittest.Require(t, loadTools(t, "testdata/v1.9.0.json"), audit.WithFailOn(audit.Info))
	assert.Empty(t, r.Findings, text(r))
	assert.Equal(t, "marketnow_", r.Prefix)
	assert.True(t, r.PrefixDetected)
	assert.True(t, r.Perfect())
	assert.Equal(t, "A 100%, B 100%, C 100%, E 100%, F 100%, overall 100%", r.Summary())
	assert.Equal(t, 6, r.Scores.A.Checked)
	assert.Equal(t, 6, r.Scores.B.Checked)
	assert.Greater(t, r.Scores.C.Checked, 15, "every nested schema node is an item")

	r = audit.Tools(loadTools(t, "testdata/v1.9.0.json"), audit.WithPrefix("marketnow_"))
	assert.Empty(t, r.Findings)
	assert.False(t, r.PrefixDetected)
}

// Every check ID is documented in the package doc, with its severity.
func TestEveryCheckIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	all := append(append([]string(nil), staticChecks...),
		audit.CheckNotProbeable, audit.CheckJSONRPC, audit.CheckNoAnswer, audit.CheckAccepted,
		audit.CheckEnvelope, audit.CheckNextSteps, audit.CheckErrorType, audit.CheckLeak)
	for _, c := range all {
		assert.Containsf(t, string(doc), "//\t"+c+" ", "doc.go does not document %s", c)
	}
}

func tools(defs ...string) []mcp.Tool {
	var out []mcp.Tool
	for _, d := range defs {
		var t mcp.Tool
		if err := json.Unmarshal([]byte(d), &t); err != nil {
			panic(err)
		}
		out = append(out, t)
	}
	return out
}

func named(names ...string) []mcp.Tool {
	var out []mcp.Tool
	for _, n := range names {
		out = append(out, mcp.Tool{Name: n, Description: "d", InputSchema: mcp.ToolInputSchema{Type: "object"}})
	}
	return out
}

func TestNamespaceDetection(t *testing.T) {
	t.Run("majority prefix flags the outlier", func(t *testing.T) {
		r := audit.Tools(named("shop_a", "shop_b", "shop_c", "cart"))
		assert.Equal(t, "shop_", r.Prefix)
		assert.Empty(t, find(r, audit.CheckNamespace, "shop_a", ""))
		f := find(r, audit.CheckNamespace, "cart", "")
		require.Len(t, f, 1)
		assert.Contains(t, f[0].Fix, `"shop_cart"`)
	})
	t.Run("a shared verb is not a namespace", func(t *testing.T) {
		r := audit.Tools(named("get_user", "get_order"))
		assert.Empty(t, r.Prefix)
		assert.Len(t, r.WithCheck(audit.CheckNamespace), 2)
	})
	t.Run("no majority, no prefix", func(t *testing.T) {
		r := audit.Tools(named("a_x", "a_y", "b_x", "c_x"))
		assert.Empty(t, r.Prefix)
		assert.Len(t, r.WithCheck(audit.CheckNamespace), 4)
	})
	t.Run("dot separator", func(t *testing.T) {
		r := audit.Tools(named("gh.create_issue", "gh.list_issues"))
		assert.Equal(t, "gh.", r.Prefix)
		assert.Empty(t, r.WithCheck(audit.CheckNamespace))
		assert.Empty(t, r.WithCheck(audit.CheckSnakeCase))
	})
	t.Run("one tool is only advice", func(t *testing.T) {
		r := audit.Tools(named("shop_search"))
		f := r.WithCheck(audit.CheckNamespace)
		require.Len(t, f, 1)
		assert.Equal(t, audit.Info, f[0].Severity)
	})
	t.Run("configured prefix", func(t *testing.T) {
		r := audit.Tools(named("shop_a", "shop_b"), audit.WithPrefix("store_"))
		assert.Len(t, r.WithCheck(audit.CheckNamespace), 2)
		assert.Equal(t, 0.0, r.Scores.A.Percent)
	})
	t.Run("no tools", func(t *testing.T) {
		r := audit.Tools(nil)
		assert.Empty(t, r.Findings)
		assert.False(t, r.Failed())
	})
}

func TestUnknownToolsInDescriptions(t *testing.T) {
	r := audit.Tools(tools(
		`{"name":"mk_search_skills","description":"Find skills. Use this when you need one; then call mk_get_skill or mk_find_skill, or the legacy search_skills.","inputSchema":{"type":"object","additionalProperties":false}}`,
		`{"name":"mk_get_skill","description":"Get a skill. Use this after mk_search_skills, then install it.","inputSchema":{"type":"object","additionalProperties":false}}`,
	))
	fs := find(r, audit.CheckDescUnknownTool, "mk_search_skills", "")
	require.Len(t, fs, 2, text(r))
	msgs := fs[0].Message + fs[1].Message
	assert.Contains(t, msgs, `"mk_find_skill"`)
	assert.Contains(t, msgs, `"search_skills"`)
	assert.Empty(t, find(r, audit.CheckDescUnknownTool, "mk_get_skill", ""))
	assert.Empty(t, r.WithCheck(audit.CheckDescNext), "both name a successor")
}

// Hostile tool definitions: the audit terminates, does not panic, and
// reports them.
func TestHostileDefinitions(t *testing.T) {
	deep := `{"type":"string"}`
	for range 500 {
		deep = `{"type":"object","additionalProperties":false,"properties":{"n":` + deep + `}}`
	}
	huge := strings.Repeat("Use this when asked. ", 50_000)
	defs := []string{
		`{"name":"x_deep","description":"Deep. Use this when testing, then stop.","inputSchema":` + deep + `}`,
		`{"name":"x_cycle","description":"Cycle. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false,"$defs":{"n":{"type":"object","additionalProperties":false,"properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}}`,
		`{"name":"x_dangling","description":"Dangling. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false,"properties":{"a":{"$ref":"#/$defs/missing"},"b":{"$ref":"http://example.com/s.json"}}}}`,
		`{"name":"x_huge","description":` + mustJSON(huge) + `,"inputSchema":{"type":"object","additionalProperties":false}}`,
		`{"name":"../../etc/passwd","description":"Traversal. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false}}`,
		`{"name":"x_weird","description":"Weird keys. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false,"properties":{"a.b\"c":{"type":"boolean"},"any":true,"never":false}}}`,
		`{"name":"x_notobj","description":"Not an object. Use this when testing, then stop.","inputSchema":{"type":"string"}}`,
	}
	r := audit.Tools(tools(defs...))
	one(t, r, audit.CheckName, "../../etc/passwd", "name", audit.Error)
	one(t, r, audit.CheckDescLong, "x_huge", "description", audit.Warning)
	one(t, r, audit.CheckType, "x_weird", "inputSchema.properties.any", audit.Error)
	assert.Empty(t, find(r, audit.CheckType, "x_weird", `inputSchema.properties["a.b\"c"]`))
	one(t, r, audit.CheckType, "x_dangling", "inputSchema.properties.a", audit.Error)
	one(t, r, audit.CheckNetworkRef, "x_dangling", "inputSchema.properties.b", audit.Error)
	one(t, r, audit.CheckRootType, "x_notobj", "inputSchema", audit.Error)
	assert.Empty(t, find(r, audit.CheckType, "x_cycle", ""), text(r))
	assert.Empty(t, find(r, audit.CheckType, "x_deep", ""))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A tool with both schemas set cannot be encoded; that is a finding, not
// a crash.
func TestUnencodableTool(t *testing.T) {
	bad := mcp.Tool{Name: "x_bad", Description: "Both schemas. Use this when testing, then stop.",
		InputSchema: mcp.ToolInputSchema{Type: "object"}, RawInputSchema: json.RawMessage(`{"type":"object"}`)}
	r := audit.Tools([]mcp.Tool{bad})
	one(t, r, audit.CheckRootType, "x_bad", "inputSchema", audit.Error)
}

func TestInvalidOptionsPanic(t *testing.T) {
	assert.Panics(t, func() { audit.WithPrefix("") })
	assert.Panics(t, func() { audit.WithPrefix("has space_") })
	assert.Panics(t, func() { audit.WithDescriptionLength(10, 5) })
	assert.Panics(t, func() { audit.WithDescriptionLength(-1, 5) })
	assert.Panics(t, func() { audit.WithTimeout(0) })
	assert.Panics(t, func() { audit.WithFailOn(0) })
	assert.Panics(t, func() { audit.WithFailOn(audit.Error + 1) })
	assert.NotPanics(t, func() { audit.Tools(named("a_b"), nil) })
}

func TestSeverity(t *testing.T) {
	for _, s := range []audit.Severity{audit.Info, audit.Warning, audit.Error} {
		b, err := s.MarshalText()
		require.NoError(t, err)
		var back audit.Severity
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, s, back)
	}
	_, err := audit.ParseSeverity("fatal")
	assert.Error(t, err)
	_, err = audit.Severity(0).MarshalText()
	assert.Error(t, err)
	assert.True(t, audit.Warning > audit.Info && audit.Error > audit.Warning)
}

func TestThresholds(t *testing.T) {
	// One warning (no maxLength), one info (no successor named), no error.
	r := audit.Tools(tools(`{"name":"a_b","description":"Look things up. Use this when you need to.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string"}}}}`,
		`{"name":"a_c","description":"Look other things up. Use this when you need to, then call a_b.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","additionalProperties":false}}`))
	require.Equal(t, 0, r.Count(audit.Error), text(r))
	require.Equal(t, 1, r.Count(audit.Warning), text(r))
	require.Equal(t, 1, r.Count(audit.Info), text(r))
	assert.False(t, r.Failed())
	assert.False(t, r.Failed(audit.Error))
	assert.True(t, r.Failed(audit.Warning))
	assert.True(t, r.Failed(audit.Info))
	assert.False(t, r.Perfect())
	// C: two tools' root objects and one property; the property fails.
	assert.Equal(t, audit.Score{Checked: 3, Passed: 2, Percent: 66.7}, *r.Scores.C)
	assert.Equal(t, "A 100%, B 100%, C 66%, E 100%, F 100%, overall 93%", r.Summary())
}

func TestReportJSON(t *testing.T) {
	r := audit.Tools(loadTools(t, "testdata/v1.7.0.json"), audit.WithServerName("marketnow 1.7.0"))
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m struct {
		Server   string                     `json:"server"`
		Probed   bool                       `json:"probed"`
		FailOn   string                     `json:"fail_on"`
		Scores   map[string]json.RawMessage `json:"scores"`
		Findings []map[string]any           `json:"findings"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "marketnow 1.7.0", m.Server)
	assert.Equal(t, "error", m.FailOn)
	assert.Contains(t, m.Scores, "A")
	assert.Contains(t, m.Scores, "overall")
	assert.NotContains(t, m.Scores, "D")
	require.NotEmpty(t, m.Findings)
	for _, f := range m.Findings {
		assert.Contains(t, []any{"error", "warning", "info"}, f["severity"])
		assert.Contains(t, []any{"A", "B", "C", "E", "F", "list"}, f["rule"])
		assert.NotEmpty(t, f["check"])
		assert.NotEmpty(t, f["message"])
	}
	var back audit.Report
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r.Findings, back.Findings)
}

func TestTextReportGroupsByTool(t *testing.T) {
	out := text(audit.Tools(loadTools(t, "testdata/v1.7.0.json")))
	assert.Contains(t, out, "score: A 0%")
	i := strings.Index(out, "\nsearch_skills:\n")
	j := strings.Index(out, "\nskill stats:\n")
	require.True(t, i > 0 && j > i, out)
	section := out[i:j]
	assert.Contains(t, section, "error   C.enum at inputSchema.properties.category")
	assert.Contains(t, section, "fix: add \"enum\"")
	assert.NotContains(t, section, "verifyTrust")
	assert.True(t, strings.HasSuffix(out, fmt.Sprintf("FAIL (fail-on %s)\n", audit.Error)), out)
}
