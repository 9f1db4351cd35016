package envelope

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	corechain "github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// This file runs core/chain's stages on mcp-go: every layer of this
// module that is one stage of a call (recover, limit.Repeats, redact and
// this package's envelope layer) is core/chain's stage over mcp-go's
// types, so that a stage is written once, in core, for every consumer.

// Answer is a tool call's answer on mcp-go, as core/chain passes it from
// stage to stage: the result and the error of a ToolHandlerFunc.
type Answer struct {
	// Result is the tool result; nil for none.
	Result *mcp.CallToolResult
	// Err is the error; nil for none.
	Err error
}

// Reading reads mcp-go's tool calls and answers for core/chain (its
// chain.Reader): the one reading the layers of this module share.
type Reading struct{}

// Call is the core's view of req.
func (Reading) Call(_ context.Context, req mcp.CallToolRequest) core.Call { return call(req) }

// Read is [AnswerOf] a, with an error that must stay a JSON-RPC error (a
// URL elicitation on a protocol version that answers it with its own
// code) read as one.
func (Reading) Read(ctx context.Context, a Answer) pipeline.Answer {
	ans := AnswerOf(a.Result, a.Err)
	if a.Err != nil {
		_, ans.Protocol = protocolError(ctx, a.Err)
	}
	return ans
}

// Failed is the answer of a handler that returned err: a [Gate]'s
// refusal, as core/chain answers it (its chain.Failer).
func (Reading) Failed(err error) Answer { return Answer{Err: err} }

// Gate returns g, a stage of admission that core/chain can run in a
// chain of several stages (validate.DeclaredStage, hints.Registry.Stage),
// as an mcp-go layer of its own: a call g refuses is answered with the
// envelope of the refusal ([ErrorResult]), and the layers inside and the
// handler do not run; a gate that also hands out the answer (a
// chain.Leaver) hands out theirs, and one that runs around them (a
// chain.Wrapper) runs around them.
func Gate(g corechain.Gate[mcp.CallToolRequest]) server.ToolHandlerMiddleware {
	if g == nil {
		panic("envelope.Gate: nil gate")
	}
	if w, ok := g.(corechain.Wrapper[mcp.CallToolRequest, Answer]); ok {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
			return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				a := w.Wrap(ctx, req, handler(next))
				return a.Result, a.Err
			}
		}
	}
	leave, _ := g.(corechain.Leaver[mcp.CallToolRequest, Answer])
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := g.Admit(ctx, req)
			if err != nil {
				return ErrorResult(ctx, req, err), nil
			}
			if leave == nil {
				return next(ctx, in)
			}
			res, err := next(ctx, in)
			a := leave.Leave(ctx, in, Answer{res, err})
			return a.Result, a.Err
		}
	}
}

// Layer returns c as an mcp-go layer: each call of the layers and handler
// inside it is served through c's stages.
func Layer(c *corechain.Chain[mcp.CallToolRequest, Answer]) server.ToolHandlerMiddleware {
	if c == nil {
		panic("envelope.Layer: nil chain")
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := c.Serve(ctx, req, handler(next), nil)
			return a.Result, a.Err
		}
	}
}

// handler is next as core/chain calls it: a function type, which costs
// no allocation when mcp-go builds its chain of layers, on every call.
type handler server.ToolHandlerFunc

func (h handler) Handle(ctx context.Context, req mcp.CallToolRequest) Answer {
	res, err := h(ctx, req)
	return Answer{res, err}
}

// writer is the envelope layer's adapter: it writes what r renders in
// mcp-go's result.
type writer struct {
	Reading
	r *Renderer
}

func (writer) Err(a Answer) error { return a.Err }

// Rendered finishes an envelope a layer inside rendered with this
// layer's renderer (RendererFrom), which hands it over in
// structuredContent: the tool is named, and the output schema decides
// where the envelope goes.
func (w writer) Rendered(ctx context.Context, req mcp.CallToolRequest, a Answer) (Answer, bool) {
	own, ok := a.Result.StructuredContent.(*Envelope)
	if !ok || own == nil {
		return a, false
	}
	env := *own
	if env.Tool == "" {
		env.Tool = req.Params.Name
	}
	return Answer{keepLayerFailure(w.r.result(ctx, &env, a.Result), a.Result), nil}, true
}

// Shown: mcp-go shows no error as a result's text.
func (writer) Shown(Answer) error { return nil }

func (writer) Text(a Answer) string {
	text, _ := splitText(a.Result.Content)
	return text
}

// Write keeps nothing of a result that came with a Go error.
func (w writer) Write(ctx context.Context, _ mcp.CallToolRequest, env *Envelope, a Answer) Answer {
	from := a.Result
	if a.Err != nil {
		from = nil
	}
	return Answer{w.r.result(ctx, env, from), nil}
}

func (writer) DropForged(a Answer) Answer { return Answer{withoutForgedFailure(a.Result), a.Err} }

// Protocol sends the bare URL elicitation request, never the handler's
// wrapping text.
func (writer) Protocol(ctx context.Context, _ mcp.CallToolRequest, a Answer) Answer {
	pass, _ := protocolError(ctx, a.Err)
	return Answer{a.Result, pass}
}
