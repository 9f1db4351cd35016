package gosdk_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/gosdk"
)

// BenchmarkPins compares, in one run, an approved tool's tools/call
// through go-sdk's in-memory transport behind Middleware without pins and
// with them:
//
//	go test -run '^$' -bench Pins -benchmem -count 6 ./gosdk | benchstat -col /pins -
func BenchmarkPins(b *testing.B) {
	for _, pinned := range []bool{false, true} {
		name := "pins=off"
		var opts []gosdk.Option
		if pinned {
			name = "pins=on"
			opts = append(opts, gosdk.WithPins(pin.New(pinLock(&testing.T{}, searchTool(approvedSearch)), slog.New(slog.DiscardHandler))))
		}
		b.Run(name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
			gosdk.Install(s, opts...)
			var runs atomic.Int64
			s.AddTool(searchTool(approvedSearch), countedHandler(&runs))
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "keyboard"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}
