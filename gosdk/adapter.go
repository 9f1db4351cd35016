package gosdk

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	corechain "github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file is the go-sdk front's adapter of core/chain, which runs the
// stages that wrap a call's answer (log, recover, repeats, redact,
// render) in core/pipeline's order: each method only reads or writes
// go-sdk's types.

// answer is what a tools/call answers on go-sdk.
type answer struct {
	res mcp.Result
	err error
}

// adapter translates go-sdk's tool calls for core/chain, for the
// Middleware serving raw, the server's handler without it.
type adapter struct {
	c   *chain
	raw mcp.MethodHandler
}

// outer returns the chain of the Middleware's outer stages, around raw,
// with the gates of admission it runs.
func (c *chain) outer(raw mcp.MethodHandler, gates []corechain.Admission[*mcp.CallToolRequest]) *corechain.Chain[*mcp.CallToolRequest, answer] {
	s := corechain.Stages[*mcp.CallToolRequest]{
		Log:     c.log != nil,
		Recover: true,
		Redact:  &corechain.Redaction{Failures: c.redactor, Successes: c.successes},
		Render:  c.front.r,
	}
	if c.repeats != nil {
		s.Repeats = &c.repeats.stage
	}
	return corechain.New[*mcp.CallToolRequest, answer](adapter{c, raw}, s, gates...)
}

// handler is next as core/chain calls it.
type handler mcp.MethodHandler

func (h handler) Handle(ctx context.Context, req *mcp.CallToolRequest) answer {
	res, err := h(ctx, methodCallTool, req)
	return answer{res, err}
}

func (a adapter) Call(ctx context.Context, req *mcp.CallToolRequest) core.Call {
	return callFrom(ctx, req)
}

// Known: go-sdk looks the tool up inside its own handler, so the
// Middleware asks the listing raw gives (unknownTool).
func (a adapter) Known(ctx context.Context, req *mcp.CallToolRequest) bool {
	return !unknownTool(ctx, req, a.raw)
}

func (adapter) Read(_ context.Context, an answer) pipeline.Answer {
	r, ok := an.res.(*mcp.CallToolResult)
	if an.err == nil && !ok && an.res != nil {
		return pipeline.Answer{} // a result type only a layer inside knows: passed on
	}
	// A (nil, err) of a low-level handler arrives as a typed-nil
	// *CallToolResult, whose GetError would panic.
	ans := AnswerOf(r)
	if an.err != nil {
		_, protocol := core.As[*jsonrpc.Error](an.err)
		ans.Err, ans.Protocol = true, protocol
	}
	return ans
}

func (adapter) Err(an answer) error { return an.err }

// Failed is a gate's refusal err, as a handler's Go error.
func (adapter) Failed(err error) answer { return answer{nil, err} }

// Rendered: a result this package rendered is final.
func (adapter) Rendered(_ context.Context, _ *mcp.CallToolRequest, an answer) (answer, bool) {
	_, ours := renderedEnvelope(result(an))
	return an, ours
}

// Shown is the error a handler set with SetError (go-sdk's typed handlers
// set the one they returned), which go-sdk would have sent as the
// result's text: its sentinels and codes count.
func (adapter) Shown(an answer) error {
	if err := result(an).GetError(); err != nil {
		return sdkError(err)
	}
	return nil
}

func (adapter) Text(an answer) string { return textOf(result(an).Content) }

// Write keeps the handler's error reachable through GetError. A result
// that came with a Go error is not the tool's answer: nothing of it is
// kept.
func (a adapter) Write(_ context.Context, req *mcp.CallToolRequest, env *core.Envelope, an answer) answer {
	from, err := result(an), an.err
	switch {
	case err != nil:
		from = nil
	case from != nil:
		err = from.GetError()
	}
	return answer{a.c.front.result(req, env, err, from, a.c.front.declaresOutput(env.Tool)), nil}
}

func (adapter) DropForged(an answer) answer {
	if r, ok := an.res.(*mcp.CallToolResult); ok && r != nil {
		an.res = withoutForgedFailure(r)
	}
	return an
}

// Protocol: go-sdk's refusal of the handler's result, which would reach
// the client as a JSON-RPC error its model never reads, is the failure of
// a result that cannot be sent; any other stays what it is.
func (a adapter) Protocol(ctx context.Context, req *mcp.CallToolRequest, an answer) answer {
	pe, _ := core.As[*jsonrpc.Error](an.err)
	if !sdkRefusedResult(pe) {
		return an
	}
	tool := callFrom(ctx, req).Tool
	env := a.c.front.r.Unencodable(ctx, tool, an.err, a.c.recover.Logger)
	return answer{a.c.front.result(req, env, nil, nil, a.c.front.declaresOutput(tool)), nil}
}

// Redact redacts a result, or a JSON-RPC error's message and data; go-sdk
// sends the outermost message with the code of the *jsonrpc.Error it
// wraps.
func (adapter) Redact(red *redact.Redactor, an answer) answer {
	if an.err == nil {
		if r, ok := an.res.(*mcp.CallToolResult); ok {
			an.res = redactResult(red, r)
		}
		return an
	}
	pe, _ := core.As[*jsonrpc.Error](an.err)
	if pe == nil || an.err != error(pe) {
		an.err = red.Error(an.err)
		return an
	}
	msg, whole := safe.ErrorText(pe) // cut at 64 KiB: bounded whatever the name a client sends
	text := red.String(msg)
	data, changed := red.RawJSON(pe.Data)
	if !whole || text != msg || changed {
		an.err = &jsonrpc.Error{Code: pe.Code, Message: text, Data: data}
	}
	return an
}

func (adapter) Envelope(an answer) (*core.Envelope, bool) { return renderedEnvelope(result(an)) }

func (adapter) Refuse(ctx context.Context, req *mcp.CallToolRequest, err error) answer {
	return answer{renderError(ctx, req, err, false), nil}
}

// Recovered logs a panic under a fresh incident and renders its
// envelope. go-sdk recovers nowhere: a panic that left the chain would
// end the process.
func (a adapter) Recovered(ctx context.Context, req *mcp.CallToolRequest, v any) answer {
	tool := callFrom(ctx, req).Tool
	ro := a.c.recover
	if a.c.onPanic != nil {
		ro.OnPanic = func(ctx context.Context, p Panic) { a.c.onPanic(ctx, req, p) }
	}
	env := a.c.front.r.Recovered(ctx, tool, v, ro)
	return answer{a.c.front.result(req, env, nil, nil, a.c.front.declaresOutput(tool)), nil}
}

// Fallback answers when recovering itself failed.
func (adapter) Fallback(*mcp.CallToolRequest) answer {
	return answer{&mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(core.FallbackInternal().Marshal())}},
		IsError: true,
	}, nil}
}

// Sendable returns a result in a form go-sdk encodes without calling the
// handler's code (see encodable in encode.go): go-sdk encodes it after
// every middleware has returned, outside any recover. A result that
// cannot be encoded is an internal_error.
func (a adapter) Sendable(ctx context.Context, req *mcp.CallToolRequest, an answer) answer {
	r, ok := an.res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return an
	}
	out, err := encodable(r)
	if err == nil {
		return answer{out, an.err}
	}
	tool := callFrom(ctx, req).Tool
	env := a.c.front.r.Unencodable(ctx, tool, err, a.c.recover.Logger)
	return answer{a.c.front.result(req, env, nil, nil, a.c.front.declaresOutput(tool)), an.err}
}

func (a adapter) Record(ctx context.Context, req *mcp.CallToolRequest, an answer, d time.Duration) {
	a.c.log.record(ctx, req, an.res, an.err, d, stateOf(ctx).note)
}

// result is an's tool result, nil for none or another type.
func result(an answer) *mcp.CallToolResult {
	r, _ := an.res.(*mcp.CallToolResult)
	return r
}
