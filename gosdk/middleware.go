package gosdk

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	corechain "github.com/mcpguard/mcpguard/core/chain"
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
		// raw, the handler without the Middleware, answers a call of an
		// unknown tool and lists the tools the gates look a call's tool
		// up in.
		raw := next
		gates, layers, tools, pins := c.admission(raw)
		next = inside(layers.Ordered(), next)
		outer, in, unknown := c.outer(raw, gates), handler(next), handler(raw)
		h := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodCallTool:
				if r, ok := req.(*mcp.CallToolRequest); ok {
					chainmark.Reach(ctx)
					// the layers inside find the chain's configuration and
					// the call, read once, in the context
					an := outer.Serve(withCall(ctx, c.front, r), r, in, unknown)
					return an.res, an.err
				}
			case methodListTools:
				res, err := next(ctx, method, req)
				if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					c.front.learn(l)
					tools.learn(l)
					c.hints.learn(ctx, req, l)
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

// admission returns the stages of admission of one server's Middleware,
// in core/pipeline's order: log, recover, repeats, redact and render,
// outside them, are core/chain's (adapter.go), and so are the gates up
// to the first layer of the user's (limits): pins, seal, hints, declared.
// What follows such a layer is a layer too (layers). tools and pins learn
// and filter the server's tools/list results.
func (c *chain) admission(raw mcp.MethodHandler) (gates []corechain.Admission[*mcp.CallToolRequest], layers pipeline.Layers[mcp.Middleware], tools *declaredTools, pins *pinned) {
	type at = corechain.Admission[*mcp.CallToolRequest]
	layers.Limits = c.limits
	if c.hints != nil {
		gates = append(gates, at{At: pipeline.Hints, Gate: hintGate{c.hints, raw}})
	}
	if pins = newPinned(c.pins); pins != nil {
		gates = append(gates, at{At: pipeline.Pins, Gate: pinGate{pins, raw}})
	}
	if c.seal != nil {
		gates = append(gates, at{At: pipeline.Seal, Gate: c.seal})
	}
	if tools = c.declared.tools(); tools != nil {
		d := declaredGate{tools, raw}
		if len(layers.Limits) == 0 {
			gates = append(gates, at{At: pipeline.Declared, Gate: d})
		} else {
			layers.Declared = []mcp.Middleware{gateLayer(d)}
		}
	}
	return gates, layers, tools, pins
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

// sdkArgumentsPrefix starts the error go-sdk v1.8.0's typed handlers
// (mcp.AddTool) set when the arguments fail the input schema (mcp/server.go,
// toolForErr).
const sdkArgumentsPrefix = `validating "arguments": `

// sdkRefusedResult reports whether pe is go-sdk's refusal to send the
// handler's result (core/pipeline's SDKRefusedResult), which would reach
// the client as a JSON-RPC error its model never reads.
func sdkRefusedResult(pe *jsonrpc.Error) bool {
	return pe != nil && pipeline.ReadSDKError(int(pe.Code), pe.Message, "") == pipeline.SDKRefusedResult
}

// sdkError gives the errors go-sdk itself sets on a result their code.
func sdkError(err error) error {
	if _, coded := core.As[*core.Error](err); !coded && strings.HasPrefix(safe.Error(err), sdkArgumentsPrefix) {
		return core.Wrap(core.ValidationError, err)
	}
	return err
}
