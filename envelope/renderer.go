package envelope

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	corechain "github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	redact "github.com/mcpguard/mcpguard/core/redact"
)

// Renderer turns failures into envelope results. It is built once from the
// user's [Option]s and shared by every layer that answers with an envelope
// (the envelope layer itself, recover, hints, validate), as connect-go's
// error writer is built from its handler options: a panic, an unclassified
// error, a legacy error result, a validation error and a hint merge all
// get the same configured messages, default next steps and redaction.
//
// A Renderer is immutable and safe for concurrent use.
type Renderer struct {
	c *core.Renderer
	// handoff is set on the twin that RendererFrom gives layers inside an
	// envelope layer: their results are finished by that layer.
	handoff bool
	twin    *Renderer
	// render is core/chain's Render stage with this renderer: the
	// envelope layer, and Normalize.
	render *corechain.Chain[mcp.CallToolRequest, Answer]
	// last is the server this layer registered last: a hit skips the map.
	last atomic.Pointer[weak.Pointer[server.MCPServer]]
}

// NewRenderer returns a Renderer configured by opts. It panics on invalid
// options, at construction, never at call time. It recognises the errors
// of mcp-go's Require* helpers as validation errors naming their field.
func NewRenderer(opts ...Option) *Renderer {
	return wrap(core.NewRenderer(append([]Option{mcpGoArgumentErrors}, opts...)...), false)
}

// wrap returns the front's Renderer of c, a handoff one when handoff.
func wrap(c *core.Renderer, handoff bool) *Renderer {
	if handoff {
		r := &Renderer{c: c, handoff: true}
		r.twin = r
		r.render = corechain.Render(r.Stage(), c)
		return r
	}
	r := &Renderer{c: c}
	r.render = corechain.Render(r.Stage(), c)
	r.twin = wrap(c, true)
	return r
}

// With returns a Renderer configured as r and then by opts, which add to
// r's configuration rather than replace it (see core's Renderer.With):
// a layer inside the envelope layer that has envelope options of its own
// renders with RendererFrom(ctx, nil).With(opts...), so the chain's
// mappings, next steps and redactor still apply, and the envelope layer
// still finishes what it renders. Without opts it returns r.
func (r *Renderer) With(opts ...Option) *Renderer {
	if len(opts) == 0 {
		return r
	}
	return wrap(r.c.With(opts...), r.handoff)
}

// Over returns r with o's options added, as [Renderer.With] does; o keeps
// the combined renderer for the next call of the same chain. A nil o adds
// nothing.
func (r *Renderer) Over(o *Overlay) *Renderer {
	if o == nil {
		return r
	}
	return wrap(o.On(r.c), r.handoff)
}

var defaultRenderer = NewRenderer()

// Middleware returns the envelope layer rendering with r; see
// [Middleware]: core/chain's Render stage. While it serves a server,
// layers inside it that render envelopes themselves find r through
// [RendererFrom].
func (r *Renderer) Middleware() server.ToolHandlerMiddleware { return r.Layer(r.render) }

// Stage returns the envelope layer's stage, rendering with r, for a
// core/chain of several stages: middleware.Default runs it with
// recovery, the repeated-failure guard and redaction in one chain, which
// [Renderer.Layer] serves.
func (r *Renderer) Stage() corechain.Writer[mcp.CallToolRequest, Answer] { return writer{r: r} }

// Layer returns c as an mcp-go layer, as [Layer] does, that renders with
// r: while it serves a server, layers inside it that render envelopes
// themselves find r through [RendererFrom].
func (r *Renderer) Layer(c *corechain.Chain[mcp.CallToolRequest, Answer]) server.ToolHandlerMiddleware {
	if c == nil {
		panic("envelope: Renderer.Layer with a nil chain")
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.register(ctx)
			a := c.Serve(ctx, req, handler(next), nil)
			return a.Result, a.Err
		}
	}
}

// Error renders err as an envelope result: classified (the error's own
// code, mappers, mappings, standard library and mcp-go errors, timeouts,
// else [WithUnclassified]'s code or internal_error), redacted, with next
// steps.
func (r *Renderer) Error(ctx context.Context, req mcp.CallToolRequest, err error) *mcp.CallToolResult {
	return r.result(ctx, r.c.Error(ctx, call(req), err), nil)
}

// Internal renders an internal_error envelope for an incident the caller
// has already logged, such as a recovered panic. Its message is the
// configured generic one ([WithInternalMessage]) whatever the cause.
func (r *Renderer) Internal(ctx context.Context, tool, incidentID string) *mcp.CallToolResult {
	return r.result(ctx, r.c.Internal(tool, incidentID), nil)
}

// Normalize renders a result that marks an error (isError: true, such as
// mcp.NewToolResultError's) or a nil result as an envelope result, as the
// envelope layer does. Other results are returned as they are, but for a
// toolFailure _meta of the handler's own, which is dropped (see core's
// DropFailureMeta).
func (r *Renderer) Normalize(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	return r.render.Serve(ctx, req, fixed{res}, nil).Result
}

// fixed answers every call with res, for core/chain: a struct of one
// pointer costs no allocation as a chain.Handler.
type fixed struct{ res *mcp.CallToolResult }

func (f fixed) Handle(context.Context, mcp.CallToolRequest) Answer { return Answer{Result: f.res} }

// Render renders an envelope that a layer built itself, such as the hints
// layer merging its steps into one, as it is: the layer has redacted what
// it added.
func (r *Renderer) Render(ctx context.Context, env *Envelope) *mcp.CallToolResult {
	return r.result(ctx, env, nil)
}

// DefaultNextSteps returns the default next steps r gives code, as
// configured with [WithDefaultNextSteps], in the form an envelope for
// incidentID carries them ("" for none). The slice is a fresh copy.
func (r *Renderer) DefaultNextSteps(code Code, incidentID string) []string {
	return r.c.DefaultNextSteps(code, incidentID)
}

// Redactor returns the redactor r applies to everything it renders.
func (r *Renderer) Redactor() *redact.Redactor { return r.c.Redactor() }

// Core returns the SDK-neutral renderer r wraps.
func (r *Renderer) Core() *core.Renderer { return r.c }

// servers maps each *server.MCPServer that an envelope layer serves to that
// layer's Renderer. A layer further in that renders by itself (validate,
// hints) then uses the configuration the user gave the chain, without
// being told. The key is a weak pointer, so a registered server can still
// be collected (test suites make thousands); registration costs a map read
// per call and no allocation, where a context value would allocate on
// every call.
var servers sync.Map // weak.Pointer[server.MCPServer] -> *Renderer

func (r *Renderer) register(ctx context.Context) {
	s := server.ServerFromContext(ctx)
	if s == nil {
		return
	}
	if last := r.last.Load(); last != nil && last.Value() == s {
		return // weak: a collected server reads nil, never a reused address
	}
	wp := weak.Make(s)
	if cur, ok := servers.Load(wp); !ok || cur != r {
		if _, loaded := servers.Swap(wp, r); !loaded {
			runtime.AddCleanup(s, func(wp weak.Pointer[server.MCPServer]) { servers.Delete(wp) }, wp)
		}
	}
	r.last.Store(&wp)
}

// RendererFrom returns the Renderer of the envelope layer serving the
// server in ctx, or fallback when there is none (a layer used alone, a unit
// test without a server). What the former renders is finished by that
// envelope layer, which knows it for its own and keeps its next steps. Layers that answer with envelopes by themselves
// use it, so that what the user configured for the chain applies to them
// too. A nil fallback means the default Renderer.
func RendererFrom(ctx context.Context, fallback *Renderer) *Renderer {
	if ctx != nil {
		if s := server.ServerFromContext(ctx); s != nil {
			if r, ok := servers.Load(weak.Make(s)); ok {
				return r.(*Renderer).twin
			}
		}
	}
	if fallback != nil {
		return fallback
	}
	return defaultRenderer
}

// RendererOutside returns the Renderer of the envelope layer serving the
// server in ctx, as [RendererFrom] does, for a layer outside that
// envelope layer (the repeated-failure guard of limit.Repeats): what it
// renders is final, shaped as the envelope layer shapes its own (no
// envelope in structuredContent for a tool that declares an output
// schema), since the envelope layer never sees it. A nil fallback means
// the default Renderer.
func RendererOutside(ctx context.Context, fallback *Renderer) *Renderer {
	if ctx != nil {
		if s := server.ServerFromContext(ctx); s != nil {
			if r, ok := servers.Load(weak.Make(s)); ok {
				return r.(*Renderer)
			}
		}
	}
	if fallback != nil {
		return fallback
	}
	return defaultRenderer
}
