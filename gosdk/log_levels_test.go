package gosdk_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// WithLevels moves the records of successes and tool errors to the
// levels asked for; an internal_error and a protocol error stay at Error,
// as on the mcp-go front (middleware.WithLevels).
func TestWithLogLevelsSetsSuccessAndToolErrorLevels(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	s := newGuardedServer(gosdk.WithLogger(log.Logger(), gosdk.WithLevels(slog.LevelDebug, slog.LevelError)))
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	lowLevel(s, "shop_panic", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	c := gosdktest.Connect(t, s)
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess()
	c.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound)
	c.Call("shop_panic", nil).ExpectError(gosdk.InternalError)
	c.Call("missing", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams)

	var got []string
	for _, rec := range log.Records() {
		if rec["msg"] == gosdk.LogMessage {
			got = append(got, fmt.Sprint(rec["tool"], " ", rec["outcome"], " ", rec["level"]))
		}
	}
	want := []string{
		"shop_get success DEBUG",
		"shop_get tool_error ERROR",
		"shop_panic tool_error ERROR",
		"missing protocol_error ERROR",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("records:\n%q\nwant\n%q", got, want)
	}
}
