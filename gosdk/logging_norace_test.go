//go:build !race

package gosdk_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// TestLoggerAllocatesNothingWhenTheRecordIsDropped: on a successful
// tools/call, a logger whose level drops the record costs the Middleware
// no allocation beyond what it costs without a logger. (Without -race,
// which changes what escapes.)
func TestLoggerAllocatesNothingWhenTheRecordIsDropped(t *testing.T) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get", Arguments: []byte(`{"id":"p-1"}`)}}
	ctx := context.Background()
	allocs := func(opts ...gosdk.Option) float64 {
		h := gosdk.Middleware(opts...)(next)
		return testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", req) })
	}
	bare := allocs()
	logged := allocs(gosdk.WithLogger(slog.New(slog.DiscardHandler), gosdk.WithArguments()))
	if logged != bare {
		t.Errorf("a successful call allocates %v times with a dropping logger, %v without one", logged, bare)
	}
}
