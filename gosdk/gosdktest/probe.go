package gosdktest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk/internal/chainmark"
	"github.com/mcpguard/mcpguard/internal/str"
)

// ConnectOption configures [Connect].
type ConnectOption func(*connectOptions)

type connectOptions struct{ allowOutside bool }

// AllowMiddlewareOutside lets tool calls pass through middleware added
// after gosdk.Middleware, for a server that keeps one of its own there on
// purpose and trusts it never to fail or panic. gosdk/otel's tracing,
// which belongs outside to see the final result, needs no such option: the
// check passes through it to what it wraps.
func AllowMiddlewareOutside() ConnectOption {
	return func(o *connectOptions) { o.allowOutside = true }
}

// probe is the outermost receiving middleware Connect adds: it tells
// whether the handler it wraps is gosdk.Middleware (or another layer of
// package gosdk, or another probe), for the tool calls of its session.
type probe struct {
	session atomic.Pointer[mcp.ServerSession]
	// ever is set once gosdk.Middleware served one of the session's calls:
	// from then on a call that does not reach it was answered outside.
	ever atomic.Bool
	mu   sync.Mutex
	msg  string
}

func (p *probe) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	direct := chainmark.Ours(next)
	transparent := chainmark.Transparent(next)
	h := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Session != p.session.Load() {
			return next(ctx, method, req)
		}
		if direct {
			p.ever.Store(true)
			return next(ctx, method, req)
		}
		ctx, c := chainmark.With(ctx)
		res, err := next(ctx, method, req)
		reached := c.Reached()
		if transparent && c.Vouched() {
			// Only this repository's transparent layers (gosdk/otel) stand
			// between the probe and gosdk.Middleware.
			p.ever.Store(reached || p.ever.Load())
			return res, err
		}
		if reached || p.ever.Load() {
			p.ever.Store(true)
			p.report(call, reached)
		}
		return res, err
	}
	chainmark.Mark(h)
	return h
}

// report records that a call passed through a middleware outside
// gosdk.Middleware.
func (p *probe) report(call *mcp.CallToolRequest, reached bool) {
	how := "passed through a middleware added after gosdk.Middleware, outside it"
	if !reached {
		how = "was answered by a middleware added after gosdk.Middleware, outside it, which an earlier call reached"
	}
	msg := fmt.Sprintf("tools/call %s %s: there, an error goes out as a JSON-RPC error with its raw text and a panic ends the process. "+
		"Add gosdk.Middleware after every other middleware (gosdk.Install does), or pass gosdktest.AllowMiddlewareOutside() to Connect for one kept there on purpose",
		boundedName(call.Params.Name), how)
	p.mu.Lock()
	p.msg = msg
	p.mu.Unlock()
}

// take returns and forgets the last report; "" on a nil probe.
func (p *probe) take() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := p.msg
	p.msg = ""
	return msg
}

// boundedName keeps a report readable whatever name a test sends.
func boundedName(name string) string {
	const max = 80
	if len(name) <= max {
		return name
	}
	return fmt.Sprintf("%s… (%d bytes)", str.Prefix(name, max), len(name))
}
