package audit_test

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// generated returns n tools shaped like a real server's: a shared prefix,
// descriptions that name other tools (some that exist, some near-misses
// and unknown identifiers), and a few typed properties each.
func generated(n int) []mcp.Tool {
	out := make([]mcp.Tool, 0, n)
	for i := range n {
		var d strings.Builder
		fmt.Fprintf(&d, "Fetch record group %d of the inventory. Use this when the user asks about group %d; then call gen_tool_%05d with the returned record_id. ", i, i, (i+1)%n)
		for j := range 8 {
			fmt.Fprintf(&d, "See also gem_tool_%05d and legacy_helper_%d_%d. ", (i+j)%n, i, j)
		}
		out = append(out, mcp.NewTool(fmt.Sprintf("gen_tool_%05d", i),
			mcp.WithDescription(d.String()),
			mcp.WithString("record_id", mcp.Required(), mcp.Pattern("^r_[0-9]+$")),
			mcp.WithString("status", mcp.Enum("open", "closed")),
			mcp.WithNumber("limit", mcp.Min(1), mcp.Max(100)),
			mcp.WithSchemaAdditionalProperties(false),
		))
	}
	return out
}

// Gateway listings put many servers' tools behind one tools/list.
var (
	gatewayNamespaces = []string{"github", "gitlab", "slack", "jira", "linear", "notion", "gdrive", "postgres", "stripe", "sentry", "figma", "k8s"}
	gatewayVerbs      = []string{"get", "list", "search", "create", "update", "delete", "archive", "export"}
	gatewayNouns      = []string{"issue", "pull_request", "comment", "channel", "message", "page", "file", "table", "customer", "invoice", "event", "project", "user", "label", "deployment"}
)

// gatewayName is the name of tool i of a gateway listing: a dozen
// namespaces, a verb and a noun, and a variant number once the
// combinations run out.
func gatewayName(i int) string {
	ns := gatewayNamespaces[i%len(gatewayNamespaces)]
	j := i / len(gatewayNamespaces)
	v, noun := gatewayVerbs[j%len(gatewayVerbs)], gatewayNouns[(j/len(gatewayVerbs))%len(gatewayNouns)]
	if k := j / (len(gatewayVerbs) * len(gatewayNouns)); k > 0 {
		return fmt.Sprintf("%s_%s_%s_v%d", ns, v, noun, k)
	}
	return fmt.Sprintf("%s_%s_%s", ns, v, noun)
}

// misspell drops one letter from the middle of a name.
func misspell(name string) string {
	i := len(name) / 2
	return name[:i] + name[i+1:]
}

// gateway returns n tools shaped like a gateway's listing: a dozen
// namespaces (so no shared prefix), descriptions that name sibling tools
// of the same namespace (every seventh misspelled, every eleventh without
// its namespace), and three to six properties with enums, bounds, patterns
// and formats.
func gateway(n int) []mcp.Tool {
	out := make([]mcp.Tool, 0, n)
	for i := range n {
		name := gatewayName(i)
		next, other := gatewayName((i+len(gatewayNamespaces))%n), gatewayName((i+2*len(gatewayNamespaces))%n)
		switch {
		case i%7 == 0:
			next = misspell(next)
		case i%11 == 0:
			other = other[strings.IndexByte(other, '_')+1:]
		}
		desc := fmt.Sprintf("Works with one %s of the connected %s account (tool %d). Use this when the user names a %s; then call %s with the returned id, or %s for related records.",
			gatewayNouns[(i/96)%len(gatewayNouns)], gatewayNamespaces[i%len(gatewayNamespaces)], i, gatewayNouns[(i/96)%len(gatewayNouns)], next, other)
		opts := []mcp.ToolOption{
			mcp.WithDescription(desc),
			mcp.WithString("id", mcp.Required(), mcp.Pattern("^[a-z0-9_-]{1,64}$")),
			mcp.WithString("state", mcp.Enum("open", "closed", "all")),
			mcp.WithNumber("limit", mcp.Min(1), mcp.Max(100)),
		}
		props := []mcp.ToolOption{
			mcp.WithString("query", mcp.MaxLength(256), mcp.Description("Free text, at most 256 characters.")),
			mcp.WithString("since", mcp.Description("An ISO 8601 timestamp.")),
			mcp.WithArray("labels", mcp.MaxItems(20), mcp.WithStringItems(mcp.MaxLength(50))),
		}
		opts = append(opts, props[:i%4]...)
		if i%3 != 0 {
			opts = append(opts, mcp.WithSchemaAdditionalProperties(false))
		}
		if v := gatewayVerbs[(i/len(gatewayNamespaces))%len(gatewayVerbs)]; v == "get" || v == "list" || v == "search" {
			opts = append(opts, mcp.WithReadOnlyHintAnnotation(true))
		}
		out = append(out, mcp.NewTool(name, opts...))
	}
	return out
}
