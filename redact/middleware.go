package redact

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/redact"
)

// Middleware redacts what a client sees of the results of the layers inside
// it, in every position a result carries text (see [Result]), for
// error results (and every result with [WithRedactSuccesses], with the
// rules of [Redactor.ForSuccess]). JSON text is
// redacted string by string, so an envelope stays a valid envelope. The
// redactor is narrowed to the call with [Redactor.ForCall], so a path the
// agent itself sent survives.
//
// Results are never modified in place: a handler may return a shared value.
// An error returned by the inner layers passes through unchanged; place the
// envelope layer inside this one so that errors become results first.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := core.Configure(opts...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if res == nil || (!res.IsError && !o.RedactSuccesses) {
				return res, err
			}
			red := o.Redactor
			if !res.IsError {
				red = o.Successes // paths and source positions stay: a success is the tool's output
			}
			return Result(red.ForCall(req.GetRawArguments()), res), err
		}
	}
}
