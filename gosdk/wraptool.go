package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WrapTool returns h as the server would run it behind layers, the
// receiving middleware you give the server, outermost first as in one
// AddReceivingMiddleware call: what a test that calls a handler directly
// needs once the handler returns Go errors. The result is what the client
// would receive, with the chain's own options (mappings, next steps,
// redaction) and no server in the context:
//
//	guard := gosdk.Middleware(gosdk.WithMapping(store.ErrDenied, gosdk.AccessDenied))
//	s.AddReceivingMiddleware(guard)
//	// in the test:
//	res, err := gosdk.WrapTool(readGraph, guard)(ctx, &mcp.CallToolRequest{
//		Params: &mcp.CallToolParamsRaw{Name: "read_graph", Arguments: json.RawMessage(`{}`)},
//	})
//	// err == nil, res.IsError, res.Content[0] the envelope's text
//
// Each layer sees the call as method "tools/call". A result that is not a
// *mcp.CallToolResult (a layer answering with another type) comes back as
// nil, with its error. The mcp-go front's twin is middleware.Wrap with the
// chain's layers: middleware.Wrap(h, middleware.Default(opts...)...).
func WrapTool(h mcp.ToolHandler, layers ...mcp.Middleware) mcp.ToolHandler {
	next := inside(layers, func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		r, _ := req.(*mcp.CallToolRequest)
		return h(ctx, r)
	})
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, methodCallTool, req)
		r, _ := res.(*mcp.CallToolResult)
		return r, err
	}
}
