package recover

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Middleware recovers a panic anywhere in the layers and handler inside it
// and answers with an internal_error envelope carrying a fresh incident ID
// and a generic message. The panic value and the stack go to the logger
// under the same incident ID, never to the client.
//
// It handles every panic value: strings, errors, runtime errors such as a
// nil map write or an index out of range, values of any type whose String
// or Error method itself panics, and panic(nil), including under
// GODEBUG=panicnil=1, where recover() returns nil. It never re-panics and
// never returns a Go error, so a panic can neither crash the server nor
// become a JSON-RPC error.
//
// It also makes the result encodable while it can still recover: the SDK
// encodes a result after every middleware has returned, where a
// MarshalJSON that panics ends the process and one that fails leaves the
// call unanswered. Every value in the result whose encoding could run the
// handler's code or fail (a MarshalJSON or MarshalText in its type, an
// interface, json.Number, a recursive type, a NaN, invalid raw JSON), in
// structuredContent, _meta, content items' _meta and resources or a
// content type of its own, is encoded here, once, and the SDK copies the
// bytes; a panic there is recovered like any other, and an encoding error
// is an internal_error logged under an incident ID. Values that can do
// neither (text, numbers, decoded JSON, valid raw JSON, structs of such
// fields, checked by type once and by their floats' values) are left to
// the SDK, so they cost no copy and are never encoded twice.
//
// A call that does not panic and whose result holds only plain values
// costs one deferred function and no allocation.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			completed := false
			defer func() {
				if completed {
					return
				}
				// A nil recover() with completed false is panic(nil) under
				// panicnil=1, or runtime.Goexit (t.FailNow in a test). In the
				// second case these results are discarded anyway.
				v := recover()
				res, err = fallback, nil
				// The handling itself runs guarded: a panicking logger or
				// callback must not turn a handled panic into a crash.
				_ = safe.Call(func() { res = o.handle(ctx, req, v) })
			}()
			res, err = next(ctx, req)
			if err == nil && res != nil {
				var eerr error
				if res, eerr = encodable(res); eerr != nil {
					res = o.unencodable(ctx, req, eerr)
				}
			}
			completed = true
			return res, err
		}
	}
}

// unencodable logs a result that cannot be encoded (see encodable in
// encode.go) under an incident and renders its internal_error.
func (o *options) unencodable(ctx context.Context, req mcp.CallToolRequest, err error) *mcp.CallToolResult {
	env := o.renderer.Core().Unencodable(ctx, req.Params.Name, err, o.logger)
	return o.renderer.Render(ctx, env)
}

// fallback answers when recovering itself failed: the logger or a callback
// panicked past its own guard.
var fallback = envelope.NewRenderer().Render(context.Background(), core.FallbackInternal())

// handle logs the panic and renders its envelope (see core's
// Renderer.Recovered, which the go-sdk front shares).
func (o *options) handle(ctx context.Context, req mcp.CallToolRequest, v any) *mcp.CallToolResult {
	tool := req.Params.Name
	ro := core.RecoverOptions{Logger: o.logger, Stack: o.stack}
	if o.onPanic != nil {
		ro.OnPanic = func(ctx context.Context, p Panic) { o.onPanic(ctx, req, p) }
	}
	env := o.renderer.Core().Recovered(ctx, tool, v, ro)
	return o.renderer.Render(ctx, env)
}
