package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
)

// RenderingLayerForTest is a minimal envelope layer built on render.go
// alone, for the hints tests while the package's Middleware is written on
// another branch: it serves the inner layers its front, as Middleware does,
// and renders what they return with render.go's renderer. Replace it with
// Middleware once that lands.
func RenderingLayerForTest(opts ...core.Option) mcp.Middleware {
	f := &front{r: core.NewRenderer(opts...)}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok {
				res, err := next(ctx, method, req)
				if l, ok := res.(*mcp.ListToolsResult); ok {
					f.learn(l)
				}
				return res, err
			}
			ctx = withFront(ctx, f)
			res, err := next(ctx, method, req)
			if err != nil {
				if _, protocol := core.As[*jsonrpc.Error](err); protocol {
					return res, err
				}
				return renderError(ctx, call, err, false), nil
			}
			r, _ := res.(*mcp.CallToolResult)
			switch {
			case r == nil:
				return f.result(f.r.Missing(ctx, callOf(call)), nil, nil, false), nil
			case !r.IsError:
				return r, nil
			}
			if _, ours := renderedEnvelope(r); ours {
				return r, nil
			}
			if err := r.GetError(); err != nil {
				return f.result(f.r.Error(ctx, callOf(call), err), err, r, f.declaresOutput(call.Params.Name)), nil
			}
			return f.result(f.r.Text(ctx, callOf(call), textOf(r.Content)), nil, r, f.declaresOutput(call.Params.Name)), nil
		}
	}
}
