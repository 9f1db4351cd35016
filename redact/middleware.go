package redact

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/pipeline"
	core "github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/envelope"
)

// Middleware redacts what a client sees of the results of the layers inside
// it, in every position a result carries text (see [Result]), for
// error results (and every result with [WithRedactSuccesses], with the
// rules of [Redactor.ForSuccess]). JSON text is
// redacted string by string, so an envelope stays a valid envelope. The
// redactor is narrowed to the call with [Redactor.ForCall], so a path the
// agent itself sent survives.
//
// What is redacted is core/pipeline's decision for what the call ended
// as ([pipeline.Policy] Redact): every position of an error result, the
// text of an error the inner layers returned (mcp-go sends it as the
// JSON-RPC error's message; the error still wraps the original, for
// errors.Is and errors.As), and a success only when configured. Place the
// envelope layer inside this one so that errors become results first.
//
// Results are never modified in place: a handler may return a shared
// value. A success passes without allocating.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := core.Configure(opts...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			switch pipeline.Decide(envelope.AnswerOf(res, err)).Policy().Redact {
			case pipeline.RedactAll, pipeline.RedactMessage:
				red := o.Redactor.ForCall(req.GetRawArguments())
				if err != nil {
					return res, red.Error(err)
				}
				return Result(red, res), nil
			case pipeline.RedactWithSuccesses:
				if o.RedactSuccesses {
					// paths and source positions stay: a success is the tool's output
					return Result(o.Successes.ForCall(req.GetRawArguments()), res), err
				}
			}
			return res, err
		}
	}
}
