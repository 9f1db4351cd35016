package gosdk_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// BenchmarkLogging measures the Middleware around a handler that does
// nothing, without a logger and with each kind of logger, side by side in
// one run: a logger whose level drops the record (the classification
// only), and a JSON handler that writes it. The error path renders the
// handler's error too.
//
//	go test -run '^$' -bench Logging -benchmem -count 6 ./gosdk
func BenchmarkLogging(b *testing.B) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	success := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	failing := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		r := &mcp.CallToolResult{}
		r.SetError(gosdk.ErrNotFound)
		return r, nil
	}
	call := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get", Arguments: []byte(`{"id":"p-1"}`)}}
	jsonLog := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for _, v := range []struct {
		name string
		opts []gosdk.Option
	}{
		{"variant=no-logger", nil},
		{"variant=disabled", []gosdk.Option{gosdk.WithLogger(slog.New(slog.DiscardHandler))}},
		{"variant=json", []gosdk.Option{gosdk.WithLogger(jsonLog)}},
		{"variant=json+arguments", []gosdk.Option{gosdk.WithLogger(jsonLog, gosdk.WithArguments())}},
	} {
		for _, p := range []struct {
			name string
			next mcp.MethodHandler
		}{{"success", success}, {"tool_error", failing}} {
			b.Run(v.name+"/path="+p.name, func(b *testing.B) {
				h := gosdk.Middleware(v.opts...)(p.next)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					_, _ = h(ctx, "tools/call", call)
				}
			})
		}
	}
}
