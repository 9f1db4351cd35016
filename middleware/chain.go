package middleware

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Chain composes middlewares into one, outermost first, the same order as
// s.Use: Chain(a, b)(h) calls a, then b, then h. Nil entries are skipped.
func Chain(mws ...server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
	list := make([]server.ToolHandlerMiddleware, 0, len(mws))
	for _, mw := range mws {
		if mw != nil {
			list = append(list, mw)
		}
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		for i := len(list) - 1; i >= 0; i-- {
			next = list[i](next)
		}
		return next
	}
}

// Wrap applies middlewares to one handler at registration, outermost first,
// for adopting mcpguard tool by tool:
//
//	s.AddTool(tool, middleware.Wrap(h, recover.Middleware(), envelope.Middleware()))
func Wrap(h server.ToolHandlerFunc, mws ...server.ToolHandlerMiddleware) server.ToolHandlerFunc {
	return Chain(mws...)(h)
}

// ForTools applies mw only to calls of the named tools; other calls skip it
// at the cost of one map lookup. It panics on an empty list, which would
// otherwise silently apply the layer to nothing.
func ForTools(mw server.ToolHandlerMiddleware, names ...string) server.ToolHandlerMiddleware {
	if len(names) == 0 {
		panic("middleware: ForTools needs at least one tool name")
	}
	set := nameSet(names)
	return When(mw, func(_ context.Context, req mcp.CallToolRequest) bool {
		_, ok := set[req.Params.Name]
		return ok
	})
}

// ExceptTools applies mw to every tool but the named ones.
func ExceptTools(mw server.ToolHandlerMiddleware, names ...string) server.ToolHandlerMiddleware {
	set := nameSet(names)
	return When(mw, func(_ context.Context, req mcp.CallToolRequest) bool {
		_, ok := set[req.Params.Name]
		return !ok
	})
}

// MatchFunc selects the calls a layer applies to.
type MatchFunc func(ctx context.Context, req mcp.CallToolRequest) bool

// When applies mw to the calls match selects. The layer is built only for
// the calls it applies to, so skipped calls cost nothing but match. match
// must not panic; it runs outside any recovery the layer itself provides.
func When(mw server.ToolHandlerMiddleware, match MatchFunc) server.ToolHandlerMiddleware {
	if mw == nil || match == nil {
		panic("middleware: When needs a middleware and a match function")
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if match(ctx, req) {
				return mw(next)(ctx, req)
			}
			return next(ctx, req)
		}
	}
}

func nameSet(names []string) map[string]struct{} {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return set
}
