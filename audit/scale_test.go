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
