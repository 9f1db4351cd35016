package redact

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
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
	return envelope.Layer(chain.Redact(Stage(opts...)))
}

// Stage returns the layer's stage, configured by opts, for a core/chain
// of several stages: middleware.Default runs it with recovery, the
// repeated-failure guard and rendering in one chain. Middleware(opts...)
// is the stage alone.
func Stage(opts ...Option) (chain.Redacter[mcp.CallToolRequest, envelope.Answer], chain.Redaction) {
	o := core.Configure(opts...)
	r := chain.Redaction{Failures: o.Redactor}
	if o.RedactSuccesses {
		r.Successes = o.Successes // paths and source positions stay: a success is the tool's output
	}
	return redacter{}, r
}

// redacter is the layer's adapter of core/chain's Redact stage.
type redacter struct{ envelope.Reading }

// Redact redacts a result in every position, or the text of an error the
// layers inside returned, which mcp-go sends as the JSON-RPC error's
// message (the error still wraps the original).
func (redacter) Redact(red *core.Redactor, a envelope.Answer) envelope.Answer {
	if a.Err != nil {
		return envelope.Answer{Result: a.Result, Err: red.Error(a.Err)}
	}
	return envelope.Answer{Result: Result(red, a.Result)}
}
