package audit

import (
	"fmt"
	"strings"
)

// tokensPerByte estimates tokens from bytes of JSON: about four bytes a
// token for English text and JSON punctuation with common tokenizers.
const bytesPerToken = 4

// checkTokens reports a tool list larger than the token budget.
func (a *auditor) checkTokens() {
	total := 0
	for _, t := range a.tools {
		total += t.size
	}
	a.tokens = total / bytesPerToken
	a.item(RuleList, "", "tools")
	if a.tokens > a.o.tokens {
		a.add(Finding{Rule: RuleList, Check: CheckListTokens, Severity: Warning, Path: "tools",
			Message: fmt.Sprintf("the tool definitions are about %d tokens (%d bytes), over the budget of %d; every turn of every conversation pays for them", a.tokens, total, a.o.tokens),
			Fix:     "shorten descriptions, move reference text into resources, or split the server so clients load only the tools a task needs"})
	}
}

// checkNetworkRefs reports every $ref in the input and output schemas that
// points outside the schema: a client has to fetch it (or fails), and
// whoever controls that host can change the schema after review.
func (a *auditor) checkNetworkRefs(t tool) {
	for _, root := range []struct {
		path string
		m    map[string]any
	}{{"inputSchema", t.schema}, {"outputSchema", t.output}} {
		if root.m == nil {
			continue
		}
		walkRefs(root.path, root.m, 0, func(path, ref string) {
			if strings.HasPrefix(ref, "#") {
				return
			}
			a.item(RuleSchemas, t.name, path)
			a.add(Finding{Rule: RuleSchemas, Check: CheckNetworkRef, Severity: Error, Tool: t.name, Path: path,
				Message: fmt.Sprintf("the $ref %q points outside the schema; a client must fetch it or fail, and whoever controls it can change the schema after review", clip(ref, 120)),
				Fix:     "inline the referenced schema, or put it under $defs and refer to it as #/$defs/..."})
		})
	}
}

// walkRefs calls f with the path of every object that has a string $ref.
func walkRefs(path string, v any, depth int, f func(path, ref string)) {
	if depth > maxSchemaDepth*2 {
		return
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			walkRefs(fmt.Sprintf("%s[%d]", path, i), e, depth+1, f)
		}
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			f(path, ref)
		}
		for _, k := range sortedKeys(x) {
			walkRefs(childPath(path, k), x[k], depth+1, f)
		}
	}
}
