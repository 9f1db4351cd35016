package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
)

// WithLimits puts layers that bound calls (the Rate, Concurrency and
// Timeout of package github.com/mcpguard/mcpguard/gosdk/limit) into the
// Middleware, in the order given, outermost first, inside its recovery and
// rendering: a panic that limit.Timeout hands back from the handler's
// goroutine still ends as an internal_error envelope with an incident ID,
// and refusals and timeouts are rendered with the Middleware's renderer
// and redactor. Give them cheapest refusal first:
//
//	gosdk.Middleware(gosdk.WithLimits(
//		limit.Rate(10, 20),
//		limit.Concurrency(8, limit.WithMaxWait(0)),
//		limit.Timeout(5*time.Second),
//	))
//
// The layers are go-sdk middleware and see every method; those of package
// limit act on tools/call only. Middleware you add to the server before
// gosdk.Middleware sits inside them, so a refused call skips it.
func WithLimits(layers ...mcp.Middleware) Option {
	return func(o *options) {
		for _, l := range layers {
			if l != nil {
				o.limits = append(o.limits, l)
			}
		}
	}
}

// ErrorResult renders err as the envelope result a client receives for a
// failed tools/call, with the configuration of the Middleware serving ctx
// (its mappings, next steps and redactor), or the defaults outside one.
// It is what a go-sdk middleware inside gosdk.Middleware answers a call
// with when it refuses it itself, as package limit does; the mcp-go
// front's envelope.ErrorResult is its twin. opts add to the Middleware's
// configuration (a setting they give replaces the Middleware's, mappings
// are tried after its own), as on the mcp-go front. GetError returns err.
func ErrorResult(ctx context.Context, req *mcp.CallToolRequest, err error, opts ...EnvelopeOption) *mcp.CallToolResult {
	return renderErrorOver(ctx, req, err, false, core.NewOverlay(opts...))
}

// inside wraps next in layers, the first outermost.
func inside(layers []mcp.Middleware, next mcp.MethodHandler) mcp.MethodHandler {
	for i := len(layers) - 1; i >= 0; i-- {
		next = layers[i](next)
	}
	return next
}
