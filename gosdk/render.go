package gosdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/calllog"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// This file is the go-sdk front's one renderer of envelope results: every
// layer of the package (Middleware, AddTool, hints) builds its failures
// with renderError, so they cannot disagree on the shape of a result.

// front is one Middleware's configuration, which the layers inside it
// (AddTool's validation, hints) find through the call's context.
type front struct {
	r *core.Renderer
	// outputs records, per tool name, whether the tool declares an output
	// schema, as the tools/list results passing through the Middleware say.
	// A client can only validate structured content against a schema that
	// tools/list sent it, and tools/list passes through this layer.
	outputs pipeline.Outputs
}

// defaultFront serves layers used without Middleware.
var defaultFront = &front{r: core.NewRenderer()}

type frontKey struct{}

// callCtx is the context of the layers inside the Middleware during one
// tools/call: it carries the Middleware's configuration and the core's
// view of the call, read off go-sdk's request once, when a layer first
// needs it (a success never does: boxing the arguments would allocate).
// Embedding the parent keeps cancellation and every other value as they
// are; it costs the one allocation a context.WithValue would.
type callCtx struct {
	context.Context
	f    *front
	req  *mcp.CallToolRequest
	once sync.Once
	call core.Call
	// The called tool's definition, listed once (currentTool).
	toolMu     sync.Mutex
	toolLooked bool
	toolListed bool
	tool       *mcp.Tool
	// What the sealing step tells the layers inside (shed.go).
	shedding shedding
	// note is the call's calllog.Note, which the limits inside note a
	// hold on and the record reads: the parent's, when a layer outside
	// (gosdk/otel) noted the call first, else own.
	note *calllog.Note
	own  calllog.Note
}

// Value returns the callCtx itself for frontKey, the call's Note for
// calllog.NoteKey, else the parent's value.
func (c *callCtx) Value(key any) any {
	switch key.(type) {
	case frontKey:
		return c
	case calllog.NoteKey:
		return c.note
	}
	return c.Context.Value(key)
}

// Call returns the call's Call, read the first time it is asked for.
func (c *callCtx) Call() core.Call {
	c.once.Do(c.read)
	return c.call
}

func (c *callCtx) read() { c.call = callOf(c.req) }

// withCall returns ctx carrying f and req for the layers inside the
// Middleware.
func withCall(ctx context.Context, f *front, req *mcp.CallToolRequest) *callCtx {
	c := &callCtx{Context: ctx, f: f, req: req, note: calllog.NoteFrom(ctx)}
	if c.note == nil {
		c.note = &c.own
	}
	return c
}

// stateOf returns the callCtx serving ctx, or nil outside a Middleware.
func stateOf(ctx context.Context) *callCtx {
	c, _ := ctx.Value(frontKey{}).(*callCtx)
	return c
}

// frontFrom returns the Middleware's configuration serving ctx, or the
// default one.
func frontFrom(ctx context.Context) *front {
	if c := stateOf(ctx); c != nil && c.f != nil {
		return c.f
	}
	return defaultFront
}

// callFrom returns the Call of req: the one the Middleware read, when req
// is the request it read it from (a layer may pass a changed request
// on), else read now.
func callFrom(ctx context.Context, req *mcp.CallToolRequest) core.Call {
	if c := stateOf(ctx); c != nil && c.req == req {
		return c.Call()
	}
	return callOf(req)
}

// rendererFrom returns the renderer of the Middleware serving ctx, or a
// default one: an inner layer renders with the chain's configuration.
func rendererFrom(ctx context.Context) *core.Renderer { return frontFrom(ctx).r }

// declaresOutput reports whether the named tool is known to declare an
// output schema.
func (f *front) declaresOutput(tool string) bool { return f.outputs.Declares(tool) }

// learn records which tools declare an output schema from a tools/list
// result.
func (f *front) learn(res *mcp.ListToolsResult) {
	if res == nil {
		return
	}
	for _, t := range res.Tools {
		if t != nil {
			f.outputs.Learn(t.Name, t.OutputSchema != nil)
		}
	}
}

// callOf is the core's view of a go-sdk tool call.
func callOf(req *mcp.CallToolRequest) core.Call {
	c := core.Call{Request: req}
	if req != nil && req.Params != nil {
		c.Tool = req.Params.Name
		c.Args = req.Params.Arguments
	}
	return c
}

// rendered marks the error of a result this package has already rendered,
// so that an outer layer does not render it again; it unwraps to the
// handler's error, which GetError keeps reachable for layers outside (e.g.
// tracing).
type rendered struct {
	err error
	env *core.Envelope
}

func (r *rendered) Error() string {
	if r.err == nil {
		return r.env.Message
	}
	return r.err.Error()
}

func (r *rendered) Unwrap() error { return r.err }

// renderedEnvelope returns the envelope of a result this package rendered.
func renderedEnvelope(res *mcp.CallToolResult) (*core.Envelope, bool) {
	if res == nil || !res.IsError {
		return nil, false
	}
	if m, ok := res.GetError().(*rendered); ok && m != nil {
		return m.env, true
	}
	return nil, false
}

// renderError classifies err with the renderer serving ctx and returns the
// final result.
func renderError(ctx context.Context, req *mcp.CallToolRequest, err error, declaresOutput bool) *mcp.CallToolResult {
	return renderErrorOver(ctx, req, err, declaresOutput, nil)
}

// renderErrorOver is renderError with a layer's own envelope options
// added to the Middleware's configuration (nil o: none).
func renderErrorOver(ctx context.Context, req *mcp.CallToolRequest, err error, declaresOutput bool, o *core.Overlay) *mcp.CallToolResult {
	f := frontFrom(ctx)
	r := o.On(f.r)
	env := r.Error(ctx, callFrom(ctx, req), err)
	return f.resultBy(r, req, env, err, nil, declaresOutput || f.declaresOutput(env.Tool))
}

// result renders env as a go-sdk result with isError: true, in the shape
// core/pipeline's BuildError gives: the envelope's JSON is the first text
// item, and the structured content unless the tool declares an output
// schema. A result normalized from the handler's own keeps that result's
// _meta, but for a toolFailure _meta (only ever this front's), and
// non-text content after the envelope. It carries go-sdk's
// resultType as a tool's result would (see [baseResult]). err (may be nil)
// stays reachable through GetError.
func (f *front) result(req *mcp.CallToolRequest, env *core.Envelope, err error, from *mcp.CallToolResult, declaresOutput bool) *mcp.CallToolResult {
	return f.resultBy(f.r, req, env, err, from, declaresOutput)
}

// resultBy is result for an envelope r rendered: r decides the tool
// failure _meta.
func (f *front) resultBy(r *core.Renderer, req *mcp.CallToolRequest, env *core.Envelope, err error, from *mcp.CallToolResult, declaresOutput bool) *mcp.CallToolResult {
	res := baseResult(req, from)
	in := pipeline.ErrorInput{Envelope: env, Renderer: r, DeclaresOutput: declaresOutput}
	if from != nil {
		in.Meta = from.Meta
	}
	shape := pipeline.BuildError(in)
	res.Content = []mcp.Content{&mcp.TextContent{Text: shape.Text}}
	if from != nil {
		res.Content = append(res.Content, nonText(from.Content)...)
	}
	if shape.Structured != nil {
		res.StructuredContent = shape.Structured
	}
	res.Meta = shape.Meta
	res.SetError(&rendered{err: err, env: env})
	return res
}

// textOf joins the text items of content.
func textOf(content []mcp.Content) string { return pipeline.JoinText(content, contentText) }

func contentText(c mcp.Content) (string, bool) {
	if t, ok := c.(*mcp.TextContent); ok && t != nil {
		return t.Text, true
	}
	return "", false
}

// nonText returns the content items that are not text.
func nonText(content []mcp.Content) []mcp.Content {
	var rest []mcp.Content
	for _, c := range content {
		if _, ok := c.(*mcp.TextContent); !ok {
			rest = append(rest, c)
		}
	}
	return rest
}

// withoutForgedFailure returns r without a toolFailure _meta of the
// handler's own, as a copy; r itself, without allocating, when it has none
// (see core's DropFailureMeta).
func withoutForgedFailure(r *mcp.CallToolResult) *mcp.CallToolResult {
	meta, dropped := core.DropFailureMeta(r.Meta)
	if !dropped {
		return r
	}
	cp := *r // keeps what GetError returns
	cp.Meta = meta
	return &cp
}

// sdkMultiRoundTrip is the first protocol version whose clients read the
// resultType of a result (go-sdk v1.8.0's protocolVersion20260728).
const sdkMultiRoundTrip = "2026-07-28"

// complete is an empty result whose unexported resultType is "complete":
// go-sdk sets it only through its decoder (or its own tool call), so the
// front takes it from there once.
var complete = func() (r mcp.CallToolResult) {
	_ = json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &r)
	r.Content = nil
	return r
}()

// baseResult returns the empty result an envelope is rendered into, with
// the resultType go-sdk gives a tool's result: that of from, the result a
// layer inside returned, which went through go-sdk's tool call; else
// "complete" when the client speaks a protocol that has it, as go-sdk's
// tool call decides (mcp/mrtr.go, handleMultiRoundTripResult). The other
// fields are empty.
func baseResult(req *mcp.CallToolRequest, from *mcp.CallToolResult) *mcp.CallToolResult {
	var res mcp.CallToolResult
	switch {
	case from != nil:
		res = *from // resultType is unexported: copy, then empty the rest
		res.Meta, res.Content, res.StructuredContent = nil, nil, nil
		res.InputRequests, res.RequestState = nil, ""
		res.IsError = false // result's SetError replaces the error too
	case req != nil && req.Session != nil && speaksResultType(req.Session):
		res = complete
	}
	return &res
}

// MultiRoundTrip reports whether the client of req negotiated multi
// round-trip requests (MCP 2026-07-28 or later), whose SDK acts on an
// input_required result by itself, as go-sdk decides it.
func MultiRoundTrip(req *mcp.CallToolRequest) bool {
	return req != nil && req.Session != nil && speaksResultType(req.Session)
}

// speaksResultType reports whether the client of ss reads resultType, as
// go-sdk's clientSupportsMultiRoundTrip decides: a session without
// initialize parameters (the stateless protocol) speaks the latest.
func speaksResultType(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= sdkMultiRoundTrip
}
