package e2e_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// gosdkStamps is a go-sdk server behind gosdk.Middleware with opts, of one
// tool, stamp, that records its runs in s, over streamable HTTP without
// sessions (so that 2026-07-28 clients find server/discover).
func (s *stamps) gosdkServer(opts ...gosdk.Option) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stamps", Version: "1"}, nil)
	srv.AddReceivingMiddleware(gosdk.Middleware(opts...))
	srv.AddTool(&mcp.Tool{Name: "stamp", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		s.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	return httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
}

// TestFrontsHoldABurstOfEitherClient is the burst against each
// front, from each Go SDK's client over streamable HTTP: 100 calls at
// twice the rate (50/s, bursts of 5) are all answered with results (with
// the hold off, WithHoldCap(0), about half are refused, a model turn
// each), and the handler never runs faster than the rate.
func TestFrontsHoldABurstOfEitherClient(t *testing.T) {
	t.Parallel()
	const r, b, n = 50, 5, 100
	for _, front := range []string{"mcp-go", "go-sdk"} {
		for _, cl := range []string{"mcp-go", "go-sdk"} {
			for _, hold := range []bool{false, true} {
				name := cl + " client, " + front + " front"
				if !hold {
					name += ", no hold"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					runs := &stamps{}
					var up *httptest.Server
					if front == "mcp-go" {
						s := runs.server()
						var opts []limit.Option
						if !hold {
							opts = append(opts, limit.WithHoldCap(0))
						}
						s.Use(middleware.Default(middleware.WithLimits(limit.Rate(rate.Limit(r), b, opts...)))...)
						up = httptest.NewServer(server.NewStreamableHTTPServer(s))
					} else {
						var opts []gosdklimit.Option
						if !hold {
							opts = append(opts, gosdklimit.WithHoldCap(0))
						}
						up = runs.gosdkServer(gosdk.WithLimits(gosdklimit.Rate(rate.Limit(r), b, opts...)))
					}
					t.Cleanup(up.Close)
					call := mcpgoStamp(t, up.URL+"/mcp", "", nil)
					if cl == "go-sdk" {
						call = gosdkStamp(t, up.URL+"/mcp", nil)
					}
					refused, failed := burstOf(withTimeout(t, time.Minute), call, n, 2*r)
					most := runs.mostInASecond()
					t.Logf("%d of %d refused, %d failed; most runs in a second %d", refused, n, failed, most)
					switch {
					case failed != 0:
						t.Errorf("%d of %d failed", failed, n)
					case hold && refused > n/50:
						t.Errorf("%d of %d refused: a 2026-07-28 client's burst is held", refused, n)
					case !hold && refused < n/4:
						t.Errorf("%d of %d refused without the hold: want about half", refused, n)
					}
					if most > mostAllowed(r, b) {
						t.Errorf("%d runs in a second, over the rate's %d", most, r+b)
					}
				})
			}
		}
	}
}
