package limit_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// A layer that answers by itself (a refusal, a timeout) renders with the
// envelope options it is given, on top of the Middleware's configuration,
// as the mcp-go front's limit.WithEnvelopeOptions does: with
// WithToolFailureMeta the answer repeats the envelope under _meta,
// retryable as the envelope says; without it, it does not.
func TestWithEnvelopeOptionsShapesTheLayersOwnAnswers(t *testing.T) {
	t.Parallel()
	stuck := func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for name, c := range map[string]struct {
		layer func(...limit.Option) mcp.Middleware
		h     mcp.ToolHandler
		calls int // calls that succeed before the one answered by the layer
	}{
		"refused":   {func(o ...limit.Option) mcp.Middleware { return limit.Rate(rate.Every(time.Hour), 1, o...) }, ok, 1},
		"timed out": {func(o ...limit.Option) mcp.Middleware { return limit.Timeout(time.Millisecond, o...) }, stuck, 0},
		"saturated": {func(o ...limit.Option) mcp.Middleware {
			return limit.Concurrency(1, append(o, limit.WithMaxWait(0))...)
		}, nil, 0},
	} {
		answer := func(opts ...limit.Option) *mcp.CallToolResult {
			h := c.h
			if h == nil { // one session holds the only slot while another asks
				release, started := make(chan struct{}), make(chan struct{}, 1)
				held := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					started <- struct{}{}
					<-release
					return ok(context.Background(), nil)
				}
				srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
				srv.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(c.layer(opts...))))
				srv.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, held)
				holder, asker := gosdktest.Connect(t, srv), gosdktest.Connect(t, srv)
				done := make(chan struct{})
				go func() { defer close(done); holder.Call(tool, nil) }()
				<-started
				defer func() { close(release); <-done }()
				return asker.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).NoLeak().CallResult
			}
			s := serve(t, h, []mcp.Middleware{c.layer(opts...)})
			for range c.calls {
				s.Call(tool, nil).ExpectSuccess()
			}
			return s.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).NoLeak().CallResult
		}

		r := answer(limit.WithEnvelopeOptions(envelope.WithToolFailureMeta()))
		failure, found := r.Meta[gosdk.ToolFailureMetaKey].(map[string]any)
		if !found {
			t.Errorf("%s: no %s in _meta: %v", name, gosdk.ToolFailureMetaKey, r.Meta)
		} else if failure["retryable"] != true {
			t.Errorf("%s: the _meta envelope is not retryable: %v", name, failure)
		}
		if plain := answer(); plain.Meta[gosdk.ToolFailureMetaKey] != nil {
			t.Errorf("%s: a _meta envelope without the option: %v", name, plain.Meta)
		}
	}
}
