package gosdk

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/gosdk/internal/chainmark"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// The methods the Middleware acts on; every other passes through.
const (
	methodCallTool  = "tools/call"
	methodListTools = "tools/list"
)

// Middleware returns the recommended chain for a go-sdk server, as one
// receiving middleware:
//
//	server.AddReceivingMiddleware(gosdk.Middleware())
//
// For tools/call, outermost first:
//
//	log       (only with WithLogger) one record of what the client saw
//	recover   a panic anywhere inside becomes an internal_error envelope
//	encode    what in the result could run the handler's code or fail when
//	          encoded (structuredContent, _meta, content items), once, so
//	          that go-sdk's encoder, which runs after every middleware,
//	          cannot panic or fail outside any recover
//	unknown   a call of a tool the server's listing does not name goes
//	          to go-sdk past every step below, which answers it unknown
//	          tool (-32602), as mcp-go does: no limit refuses it or spends
//	          a token on it (the listing is what the middleware added
//	          before gives: one that hides a tool from tools/list must
//	          refuse its calls too, or they run past the steps below)
//	repeats   the repeated-failure guard ([WithRepeats];
//	          docs/wire-contract.md#repeated-failures)
//	redact    scrubs every error result on its way out
//	envelope  errors, handler-built error results and nil results become
//	          envelopes
//	pins      (only with WithPins) refuses the tools whose definition is
//	          not the one approved (core/pin), which tools/list leaves out
//	seal      seals every requestState handed out and opens every echo
//	          (WithStateKeys, WithoutStateSealing)
//	hints     (only with WithHints) the tools' next steps
//	limits    (only with WithLimits) rate, concurrency and time bounds
//	declared  checks the arguments against the tool's declared input
//	          schema (off with WithoutDeclaredSchemas)
//
// Every other method passes through untouched, without allocating
// (tools/list results are only read, to learn which tools declare an
// output schema, and, WithPins, filtered). See the package documentation for what each step
// guarantees and where to add it among other middleware.
func Middleware(opts ...Option) mcp.Middleware {
	c := evaluate(opts)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		var tools *declaredTools
		layers := pipeline.Layers[mcp.Middleware]{Limits: c.limits}
		if c.hints != nil {
			layers.Hints = []mcp.Middleware{c.hints}
		}
		if c.declared != nil {
			layers.Declared = []mcp.Middleware{func(n mcp.MethodHandler) mcp.MethodHandler {
				var checked mcp.MethodHandler
				checked, tools = c.declared.wrap(n)
				return checked
			}}
		}
		pins := newPinned(c.pins)
		if pins != nil {
			layers.Pins = []mcp.Middleware{pins.wrap}
		}
		if c.seal != nil {
			layers.Seal = []mcp.Middleware{c.seal}
		}
		// core/pipeline's order from the pins on; log, recover, repeats,
		// redact and render, outside them, are the one step of c.call.
		// raw, the handler without them, answers a call of an unknown tool.
		raw := next
		next = inside(layers.Ordered(), next)
		h := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodCallTool:
				if r, ok := req.(*mcp.CallToolRequest); ok {
					chainmark.Reach(ctx)
					return c.call(ctx, method, r, next, raw)
				}
			case methodListTools:
				res, err := next(ctx, method, req)
				if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					c.front.learn(l)
					tools.learn(l)
					res = pins.filter(ctx, l)
				}
				return res, err
			}
			return next(ctx, method, req)
		}
		chainmark.Mark(h)
		return h
	}
}

// Install adds the recommended chain to s in one call, in the right
// place: outermost, so that every middleware added before it, and the
// hints layer ([WithHints]), is inside its recovery and rendering. Call it
// after adding your own middleware:
//
//	server.AddReceivingMiddleware(auth, rateLimit)
//	gosdk.Install(server, gosdk.WithLogger(logger), gosdk.WithHints(rules...))
//
// It is server.AddReceivingMiddleware(gosdk.Middleware(opts...)). go-sdk
// does not let a program see the middleware of a server, so Install
// cannot tell whether middleware is added after it (outside, unguarded);
// package gosdktest fails a test whose tool calls pass through one.
func Install(s *mcp.Server, opts ...Option) {
	if s == nil {
		panic("gosdk.Install: nil server")
	}
	s.AddReceivingMiddleware(Middleware(opts...))
}

// call serves one tools/call: the layers inside find the chain's
// configuration and the call, read once, in ctx, and the record is
// written last, of what the client receives.
func (c *chain) call(ctx context.Context, method string, req *mcp.CallToolRequest, next, raw mcp.MethodHandler) (mcp.Result, error) {
	var start time.Time
	if c.log != nil {
		start = time.Now()
	}
	cc := withCall(ctx, c.front, req)
	res, err := c.guard(cc, method, req, next, raw)
	if c.log != nil {
		c.log.record(cc, req, res, err, time.Since(start), cc.note)
	}
	return res, err
}

// guard runs the layers inside, finishes their result and makes it
// encodable; a panic in any of these becomes an internal_error envelope.
// It never re-panics: go-sdk recovers nowhere, so a panic that left here
// would end the process. A call of a tool the server does not have goes
// to raw, past the repeated-failure guard and every stage of admission,
// as mcp-go and mcpguard-proxy answer it: go-sdk's "unknown tool", never
// a rate limit's "wait, then repeat this call unchanged".
func (c *chain) guard(ctx context.Context, method string, req *mcp.CallToolRequest, next, raw mcp.MethodHandler) (res mcp.Result, err error) {
	completed := false
	defer func() {
		if completed {
			return
		}
		// A nil recover() with completed false is panic(nil) under
		// GODEBUG=panicnil=1, or runtime.Goexit (t.FailNow in a test),
		// whose results are discarded anyway.
		v := recover()
		res, err = fallback(), nil
		// Guarded: a panicking logger or callback must not turn a handled
		// panic into a crash.
		_ = safe.Call(func() { res = c.recovered(ctx, req, v) })
	}()
	if unknownTool(ctx, req, raw) {
		res, err = raw(ctx, method, req)
		res, err = c.finish(ctx, req, res, err)
	} else {
		ticket, repeated := c.repeats.admit(ctx, req)
		if repeated == nil {
			res, err = next(ctx, method, req)
		} else {
			err = repeated // answered without running the handler
		}
		res, err = c.finish(ctx, req, res, err)
		if repeated == nil {
			c.repeats.settle(ctx, ticket, req, res)
		}
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
		res = c.encodable(ctx, req, r)
	}
	completed = true
	return res, err
}

// encodable returns r in a form go-sdk encodes without calling the
// handler's code (see encodable in encode.go), inside guard's recover, or
// the internal_error result for a result that cannot be encoded.
func (c *chain) encodable(ctx context.Context, req *mcp.CallToolRequest, r *mcp.CallToolResult) *mcp.CallToolResult {
	out, err := encodable(r)
	if err == nil {
		return out
	}
	tool := callFrom(ctx, req).Tool
	env := c.front.r.Unencodable(ctx, tool, err, c.recover.Logger)
	return c.front.result(req, env, nil, nil, c.front.declaresOutput(tool))
}

// recovered logs a panic under a fresh incident and renders its envelope.
func (c *chain) recovered(ctx context.Context, req *mcp.CallToolRequest, v any) *mcp.CallToolResult {
	tool := callFrom(ctx, req).Tool
	ro := c.recover
	if c.onPanic != nil {
		ro.OnPanic = func(ctx context.Context, p Panic) { c.onPanic(ctx, req, p) }
	}
	env := c.front.r.Recovered(ctx, tool, v, ro)
	return c.front.result(req, env, nil, nil, c.front.declaresOutput(tool))
}

// fallback answers when recovering itself failed.
func fallback() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(core.FallbackInternal().Marshal())}},
		IsError: true,
	}
}

// finish turns what the layers inside returned into what the client
// receives, as core/pipeline decides the outcome: a protocol error stays
// one; any other error, a handler's own error result and a nil result
// become envelopes; a successful or input_required result passes as it
// is, without a toolFailure _meta of its own. What is redacted is the
// outcome's policy (pipeline.Policy Redact): a protocol error's message,
// every position of a failure, a success only WithRedactSuccesses (the
// rules of ForSuccess).
func (c *chain) finish(ctx context.Context, req *mcp.CallToolRequest, res mcp.Result, err error) (mcp.Result, error) {
	var pe *jsonrpc.Error
	if err != nil {
		pe, _ = core.As[*jsonrpc.Error](err)
	}
	// A (nil, err) of a low-level handler arrives as a typed-nil
	// *CallToolResult, whose GetError would panic.
	r, ok := res.(*mcp.CallToolResult)
	if err == nil && !ok && res != nil {
		return res, nil // a result type only a layer inside knows
	}
	a := AnswerOf(r)
	a.Err, a.Protocol = err != nil, pe != nil
	o := pipeline.Decide(a)
	switch o {
	case pipeline.ProtocolError:
		if !sdkRefusedResult(pe) {
			return res, c.protocol(ctx, req, err, pe)
		}
		// the handler's result, which go-sdk would not send: a failure of
		// the tool, as one that cannot be encoded is
		tool := callFrom(ctx, req).Tool
		r = c.front.result(req, c.front.r.Unencodable(ctx, tool, err, c.recover.Logger), nil, nil, c.front.declaresOutput(tool))
	case pipeline.GoError:
		r = renderError(ctx, req, err, false)
	case pipeline.Missing:
		call := callFrom(ctx, req)
		r = c.front.result(req, c.front.r.Missing(ctx, call), nil, nil, c.front.declaresOutput(call.Tool))
	case pipeline.ErrorResult:
		r = c.normalize(ctx, req, r)
	default:
		if o.Policy().DropForgedFailure {
			r = withoutForgedFailure(r)
		}
	}
	red := c.redactor
	if o.Policy().Redact == pipeline.RedactWithSuccesses {
		if red = c.successes; red == nil {
			return r, nil
		}
	}
	return redactResult(red.ForCall(callFrom(ctx, req).Args), r), nil
}

// AnswerOf is a tool call's result as core/pipeline reads an answer: the
// one reading of a go-sdk result for this front and gosdk/otel.
// pipeline.Decide of it is what the call ended as (a nil r is Missing).
// go-sdk keeps a result's resultType to itself, and sets it (from the
// input requests) for a client of MCP 2026-07-28 only, so its NeedsInput
// is the resultType passed on.
func AnswerOf(r *mcp.CallToolResult) pipeline.Answer {
	if r == nil {
		return pipeline.Answer{Nil: true}
	}
	a := pipeline.Answer{IsError: r.IsError, InputRequests: r.InputRequests != nil}
	if r.NeedsInput() {
		a.ResultType = pipeline.ResultTypeInputRequired
	}
	return a
}

// normalize renders a result with isError: true as an envelope result,
// unless this package rendered it already. The error a handler set with
// SetError (go-sdk's typed handlers set the one they returned) is
// classified, so that its sentinels and codes count; a result without one
// is classified by its text.
func (c *chain) normalize(ctx context.Context, req *mcp.CallToolRequest, r *mcp.CallToolResult) *mcp.CallToolResult {
	if _, ours := renderedEnvelope(r); ours {
		return r
	}
	call := callFrom(ctx, req)
	if err := r.GetError(); err != nil {
		// go-sdk would have sent this error's text as the result: an
		// unclassified one keeps it (redacted), so the agent never reads
		// less than it did without the layer.
		call.Shown = true
		env := c.front.r.Error(ctx, call, sdkError(err))
		return c.front.result(req, env, err, r, c.front.declaresOutput(env.Tool))
	}
	if !c.front.r.Normalizes() {
		return withoutForgedFailure(r)
	}
	env := c.front.r.Text(ctx, call, textOf(r.Content))
	return c.front.result(req, env, nil, r, c.front.declaresOutput(env.Tool))
}

// sdkArgumentsPrefix starts the error go-sdk v1.8.0's typed handlers
// (mcp.AddTool) set when the arguments fail the input schema (mcp/server.go,
// toolForErr).
const sdkArgumentsPrefix = `validating "arguments": `

// sdkMixedResult is the error go-sdk v1.8.0 answers a tools/call with, in
// place of the handler's result, when that result asks for input and has
// content too (mcp/mrtr.go, handleMultiRoundTripResult): a result go-sdk
// refuses to send.
const sdkMixedResult = "server bug: result has both content and inputRequests"

// sdkRefusedResult reports whether pe is go-sdk's refusal of the handler's
// result (sdkMixedResult), which would reach the client as a JSON-RPC
// error its model never reads.
func sdkRefusedResult(pe *jsonrpc.Error) bool {
	return pe.Code == jsonrpc.CodeInternalError && pe.Message == sdkMixedResult
}

// sdkError gives the errors go-sdk itself sets on a result their code.
func sdkError(err error) error {
	if _, coded := core.As[*core.Error](err); !coded && strings.HasPrefix(safe.Error(err), sdkArgumentsPrefix) {
		return core.Wrap(core.ValidationError, err)
	}
	return err
}

// protocol returns the JSON-RPC error a layer inside chose (go-sdk's
// unknown tool, a handler's own *jsonrpc.Error) with its message redacted;
// err itself when nothing needed redaction. go-sdk sends the outermost
// message with the code of the *jsonrpc.Error it wraps.
func (c *chain) protocol(ctx context.Context, req *mcp.CallToolRequest, err error, pe *jsonrpc.Error) error {
	r := c.redactor.ForCall(callFrom(ctx, req).Args)
	if err != error(pe) {
		return r.Error(err) // go-sdk keeps the code of the error it wraps
	}
	msg, whole := safe.ErrorText(err) // cut at 64 KiB: bounded whatever the name a client sends
	red := r.String(msg)
	data, changed := r.RawJSON(pe.Data)
	if whole && red == msg && !changed {
		return err
	}
	return &jsonrpc.Error{Code: pe.Code, Message: red, Data: data}
}
