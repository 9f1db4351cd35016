package proxy

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// ScopeName is the instrumentation scope of the proxy's tracer and meter.
const ScopeName = "github.com/mcpguard/mcpguard/cmd/mcpguard-proxy"

// errorTypeCancelled is error.type on the span of a request that got no
// answer because its client cancelled it or went away.
const errorTypeCancelled = "cancelled"

// WithTelemetry traces and measures every request a client sends with
// core/otel, by the OpenTelemetry semantic conventions for MCP, as the
// SDK fronts do: one SERVER span per request, ended with what the client
// was answered, and the histogram mcp.server.operation.duration. opts are
// core/otel's (WithTracerProvider and WithMeterProvider at least: the
// proxy never reads the global providers). Without this option, or with
// both providers the API's no-op ones, the proxy installs nothing.
func WithTelemetry(opts ...coreotel.Option) Option {
	return func(o *options) {
		o.telemetry = append(o.telemetry[:len(o.telemetry):len(o.telemetry)], opts...)
		o.traced = true
	}
}

// instrument is the Instrument opts ask for, nil without [WithTelemetry].
func (o *options) instrument() *coreotel.Instrument {
	if !o.traced {
		return nil
	}
	return coreotel.New(ScopeName, o.telemetry...)
}

// traced is the span of one client request in flight. It ends once,
// whichever path answers the request first.
type traced struct {
	g     *Guard
	ctx   context.Context
	span  coreotel.Span
	tool  string     // tools/call: the tool's name as the span records it
	call  bool       // a tools/call
	tools *toolTable // the tools the call is checked against; nil: the Guard's
	ended atomic.Bool
}

// peer is what the transport knows of the client a request came from.
type peer struct {
	session, version string
	transport        coreotel.Transport
}

// trace starts the span of the client request m, or returns nil when
// nothing records (no [WithTelemetry], or no SDK behind it).
func (g *Guard) trace(ctx context.Context, m *rpc.Message, p peer) *traced {
	if g.in == nil || !specMethods[m.Method] || !g.in.Traces(m.Method) || !g.in.Active() {
		return nil
	}
	c := coreotel.Call{Method: m.Method, RequestID: requestID(m.ID), SessionID: p.session,
		ProtocolVersion: p.version, Transport: p.transport}
	g.readParams(&c, m.Params)
	ctx, span := g.in.Start(ctx, &c)
	return &traced{g: g, ctx: ctx, span: span, tool: c.Tool, call: c.Method == coreotel.MethodCallTool}
}

// specMethods are the requests a client sends a server in the MCP
// specification (2025-06-18 and 2025-11-25): the ones traced.
// mcp.method.name is on the metric, so a method a client invents must not
// make a new series; it passes through untraced.
var specMethods = map[string]bool{
	"initialize": true, "ping": true, "tools/list": true, "tools/call": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true, "resources/subscribe": true,
	"resources/unsubscribe": true, "prompts/list": true, "prompts/get": true, "completion/complete": true,
	"logging/setLevel": true, "tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true,
}

// readParams reads what the span says of a request's params: the tool,
// prompt or resource it names, and the trace context in its _meta.
func (g *Guard) readParams(c *coreotel.Call, params []byte) {
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Meta      map[string]any  `json:"_meta"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	switch c.Method {
	case coreotel.MethodCallTool:
		c.Tool = p.Name
		if g.in.RecordsArguments() && p.Arguments != nil {
			args := string(p.Arguments)
			c.Arguments = func() string { return args }
		}
	case coreotel.MethodGetPrompt:
		c.Prompt = p.Name
	case coreotel.MethodReadResource:
		c.URI = p.URI
	}
	if p.Meta != nil {
		c.Meta = p.Meta
	}
}

// requestID is jsonrpc.request.id: a string id's text, or a number's.
func requestID(id []byte) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// answered ends the span with what msg, the response the client is sent,
// says; head is msg's parsed head when the caller has it. It is a no-op on
// a nil span or one already ended.
func (t *traced) answered(msg []byte, head *rpc.Message) {
	if t == nil || t.ended.Load() {
		return
	}
	if head == nil {
		m, err := rpc.Parse(msg)
		if err != nil {
			t.end(coreotel.Outcome{})
			return
		}
		head = &m
	}
	if t.once() {
		a := t.answer(head)
		a.UnknownTool = t.unlisted()
		coreotel.End(t.ctx, t.span, a)
	}
}

// context is the span's context, for what the request logs, or ctx
// without a span.
func (t *traced) context(ctx context.Context) context.Context {
	if t == nil {
		return ctx
	}
	return t.ctx
}

// cancelled ends the span of a request that gets no answer.
func (t *traced) cancelled() { t.end(coreotel.Outcome{ErrorType: errorTypeCancelled}) }

// end ends the span with out, once.
func (t *traced) end(out coreotel.Outcome) {
	if t.once() {
		out.UnknownTool = out.UnknownTool || t.unlisted()
		t.span.End(t.ctx, out)
	}
}

// once reports whether the span is still to end, and marks it ended.
func (t *traced) once() bool { return t != nil && t.ended.CompareAndSwap(false, true) }

// unlisted reports whether the request calls a tool the upstream did not
// list: _OTHER on the metric, since a name a client invents must not make
// a new series.
func (t *traced) unlisted() bool {
	if !t.call {
		return false
	}
	tools := t.tools
	if tools == nil {
		tools = &t.g.tools
	}
	return tools.get(t.tool) == nil
}

// answer reads the response m as core/otel reads every consumer's answer:
// a JSON-RPC error's code; of a tools/call result, what pipeline.Decide
// reads and its content. A result that cannot be an error is not decoded
// unless its text is recorded.
func (t *traced) answer(m *rpc.Message) coreotel.Answer[json.RawMessage] {
	if len(m.Error) > 0 {
		var e struct {
			Code int `json:"code"`
		}
		_ = json.Unmarshal(m.Error, &e)
		return coreotel.Answer[json.RawMessage]{Answer: pipeline.Answer{Err: true}, Code: e.Code}
	}
	var res result
	if !t.call || (!t.g.in.RecordsResults() && !mayBeError(m.Result)) || json.Unmarshal(m.Result, &res) != nil {
		return coreotel.Answer[json.RawMessage]{} // a success
	}
	return coreotel.Answer[json.RawMessage]{Answer: res.answer(), Content: res.Content, Text: itemText}
}

// listed reports whether the upstream's tools/list named tool.
func (g *Guard) listed(c *call) bool { return g.toolOf(c) != nil }

// toolOf is the listed tool c calls, nil when none is listed under its
// name; once found, it is the call's.
func (g *Guard) toolOf(c *call) *tool {
	if c.t == nil {
		c.t = g.tableOf(c).get(c.tool)
	}
	return c.t
}

// statusOutcome is the outcome of a request answered with an HTTP status
// and no JSON-RPC message: error.type is the status code, as the HTTP
// conventions record it.
func statusOutcome(status int) coreotel.Outcome {
	if status < 400 {
		return coreotel.Outcome{}
	}
	return coreotel.Outcome{ErrorType: strconv.Itoa(status)}
}

// protocolVersion is v when it is a protocol version of MCP, "" when v is
// empty, and _OTHER otherwise: mcp.protocol.version is on the metric, so a
// value a peer invents must not make a new series.
func protocolVersion(v string) string {
	switch v {
	case "", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25":
		return v
	}
	return coreotel.OtherTool // the conventions' value for a value outside the known set
}
