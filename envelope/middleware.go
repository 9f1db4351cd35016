package envelope

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Middleware turns every failure of the layers inside it into a tool result
// with isError: true that carries an [Envelope]:
//
//   - an error returned with a nil result is classified (its own code, then
//     [WithMapper] functions, then [WithMapping] sentinels, then the
//     standard library's fs.ErrNotExist and fs.ErrPermission, then
//     timeouts, then mcp-go's argument errors, else the [WithUnclassified]
//     code, internal_error by default) and rendered. The standard library
//     rules cannot tell whose file is missing: mark the server's own
//     failures with [Internal], which outranks them all;
//   - a result the handler built with isError: true, such as
//     mcp.NewToolResultError's, becomes an envelope whose message is its
//     text, execution_failed unless its text says better;
//   - a nil result with a nil error, which mcp-go would answer with a
//     JSON-RPC error, becomes an internal_error.
//
// Messages are redacted. Internal errors get a generic message and an
// incident ID; their detail goes to the logger. Successful results pass
// through untouched, without allocating.
//
// One error is passed through: mcp.URLElicitationRequiredError, which asks
// the client to open a URL and belongs to the protocol, not to the tool,
// on protocol versions that answer it with its own JSON-RPC code. The bare
// value goes out, never the handler's wrapping text.
//
// Middleware(opts...) is NewRenderer(opts...).Middleware(); build the
// Renderer yourself to share it with other layers.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	return NewRenderer(opts...).Middleware()
}

// ErrorResult renders err as an envelope result. Layers that answer by
// themselves, such as validation, use it so that they are safe without the
// envelope layer. It renders as the envelope layer serving ctx's server
// would ([RendererFrom]), so the chain's configuration applies, with opts
// added to it ([Renderer.With]): a layer's own options never drop the
// chain's mappings, next steps or redactor. Outside a server (a
// test that calls a handler directly) it knows none of
// the chain's mappings: run the handler through the chain instead,
// middleware.Wrap(h, middleware.Default(opts...)...), to get what a client
// would receive.
func ErrorResult(ctx context.Context, req mcp.CallToolRequest, err error, opts ...Option) *mcp.CallToolResult {
	return rendererFor(ctx, opts).Error(ctx, req, err)
}

// InternalResult renders an internal_error envelope for an incident that
// the caller has already logged, e.g. a recovered panic, configured as
// [ErrorResult] is. To mark an error as internal, see [Internal].
func InternalResult(ctx context.Context, tool, incidentID string, opts ...Option) *mcp.CallToolResult {
	return rendererFor(ctx, opts).Internal(ctx, tool, incidentID)
}

func rendererFor(ctx context.Context, opts []Option) *Renderer {
	return RendererFrom(ctx, nil).With(opts...)
}
