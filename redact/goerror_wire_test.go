package redact_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// Alone, without the envelope layer inside it, Middleware still keeps a
// secret out of what mcp-go sends for a Go error: the JSON-RPC error's
// message. It leaked before (issue 46: core/pipeline's Policy.Redact was
// read by no consumer).
func TestMiddlewareAloneRedactsAGoErrorsText(t *testing.T) {
	t.Parallel()
	srv := middlewaretest.New(t, mcp.NewTool("shop_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial postgres://app:hunter2@db.internal/shop: connection refused")
	}, redact.Middleware())
	r := srv.Call(nil).NoLeak("hunter2")
	if !strings.Contains(string(r.Raw), `"code":-32603`) || !strings.Contains(string(r.Raw), "connection refused") {
		t.Errorf("want mcp-go's JSON-RPC error with the rest of the message, got %s", r.Raw)
	}
}
