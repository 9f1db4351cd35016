package recover

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/envelope"
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
	return envelope.Layer(chain.Recover(Stage(opts...)))
}

// Stage returns the layer's stage, configured by opts, for a core/chain
// of several stages: middleware.Default runs it with the
// repeated-failure guard, redaction and rendering in one chain.
// Middleware(opts...) is the stage alone.
func Stage(opts ...Option) chain.Recoverer[mcp.CallToolRequest, envelope.Answer] {
	return recoverer{evaluate(opts)}
}

// recoverer is the layer's adapter of core/chain's Recover stage.
type recoverer struct{ o options }

func (r recoverer) Recovered(ctx context.Context, req mcp.CallToolRequest, v any) envelope.Answer {
	return envelope.Answer{Result: r.o.handle(ctx, req, v)}
}

func (recoverer) Fallback(mcp.CallToolRequest) envelope.Answer {
	return envelope.Answer{Result: fallback}
}

// Sendable makes a result encodable while the layer can still recover
// (see encodable in encode.go).
func (r recoverer) Sendable(ctx context.Context, req mcp.CallToolRequest, a envelope.Answer) envelope.Answer {
	if a.Err != nil || a.Result == nil {
		return a
	}
	res, err := encodable(a.Result)
	if err != nil {
		res = r.o.unencodable(ctx, req, err)
	}
	return envelope.Answer{Result: res}
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
