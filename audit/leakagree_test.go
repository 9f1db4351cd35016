package audit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// The audit's leak check and middlewaretest.NoLeak read one list
// (internal/leak): a server passes one exactly when it passes the other.
func TestLeakCheckAgreesWithNoLeak(t *testing.T) {
	t.Parallel()
	texts := []string{
		"goroutine 7 [running]:\nmain.handler()",
		"order.go:42: nil order",
		"open /home/dev/shop/orders.db: no such file",
		`C:\Users\dev\shop\orders.db is locked`,
		"panic recovered in t_get tool handler: assignment to entry in nil map",
		"runtime error: index out of range [3] with length 2",
		"connect postgres://app:hunter2@db:5432/shop failed",
		"db_password=hunter2 rejected",
		"Authorization: Bearer abcdef0123456789abcdef",
		"order ord_123456 is not in the catalogue",
		`relation "products" does not exist`,
		"the limit must be between 1 and 50",
	}
	for _, text := range texts {
		s := server.NewMCPServer("t", "1")
		s.AddTool(mcp.NewTool("t_get", mcp.WithString("id", mcp.Required())),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultError(text), nil
			})
		r, err := audit.Server(context.Background(), s, audit.WithProbe())
		require.NoError(t, err)
		_, flagged := dFindings(r, "t_get")[audit.CheckLeak]
		wire, _ := json.Marshal(mcp.NewToolResultError(text))
		assert.Equal(t, len(middlewaretest.Leaks(wire)) > 0, flagged, "%q: NoLeak and the audit disagree", text)
	}
}
