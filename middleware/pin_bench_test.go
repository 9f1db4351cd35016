package middleware_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/middleware"
)

// BenchmarkPins compares, in one run, an approved tool's tools/call
// through Default without pins and with them (WithPins, PinListing):
//
//	go test -run '^$' -bench Pins -benchmem -count 6 ./middleware | benchstat -col /pins -
func BenchmarkPins(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"keyboard"}}}`)
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	}
	for _, pinned := range []bool{false, true} {
		name := "pins=off"
		if pinned {
			name = "pins=on"
		}
		b.Run(name, func(b *testing.B) {
			var sopts []server.ServerOption
			var mopts []middleware.Option
			if pinned {
				pins := pin.New(lockOf(&testing.T{}, searchTool(approvedSearch)), slog.New(slog.DiscardHandler))
				sopts = append(sopts, middleware.PinListing(pins))
				mopts = append(mopts, middleware.WithPins(pins))
			}
			s := server.NewMCPServer("bench", "1.0.0", append(sopts, server.WithToolCapabilities(false))...)
			s.Use(middleware.Default(mopts...)...)
			s.AddTool(searchTool(approvedSearch), ok)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.HandleMessage(ctx, msg)
			}
		})
	}
}
