package hints

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	coreenv "github.com/mcpguard/mcpguard/core/envelope"
	core "github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
)

// MetaKey is the _meta key under which a successful result carries its
// next steps, as a JSON array of strings. It follows the MCP spec's _meta
// naming rules: a reverse-DNS prefix the project controls (the second
// label is neither "modelcontextprotocol" nor "mcp", so it is not
// reserved), a slash, and a name.
const MetaKey = core.MetaKey

// Registry holds the rules of a set of tools and the options they run
// with. It is immutable and safe for concurrent use; one Registry can
// serve several servers.
type Registry struct {
	c *core.Registry[mcp.CallToolRequest, *mcp.CallToolResult]
	// renderer renders error results when no envelope layer serves the
	// server; under one, hints renders with that layer's Renderer.
	renderer *envelope.Renderer
}

// New returns a Registry for rules. Several rules for the same tool are
// merged, in order. It panics on a zero Rule.
func New(rules []Rule, opts ...Option) *Registry {
	c := core.NewRegistry(rules, request, opts...)
	return &Registry{c: c, renderer: envelope.NewRenderer(envelope.WithRedactor(c.Redactor()), envelope.WithLogger(c.Logger()))}
}

// request rebuilds the mcp-go request of a call that another front's
// renderer describes.
func request(call coreenv.Call) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = call.Tool
	req.Params.Arguments = call.Args
	return req
}

// Middleware returns the hints layer for rules with the default options:
//
//	s.Use(middleware.Default()...)
//	s.Use(hints.Middleware(
//		hints.For("shop_order",
//			hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
//			hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
//		),
//	))
//
// See [Registry.Middleware].
func Middleware(rules ...Rule) server.ToolHandlerMiddleware { return New(rules).Middleware() }

// Middleware returns the hints layer. It works on either side of the
// envelope layer (middleware.Default):
//
//   - inside it (the order above), a Go error from the handler goes out
//     decorated with the tool's steps, which the envelope layer computes
//     once it has classified the error and puts first in next_steps;
//   - outside it, the envelope layer finds the same steps through the
//     call's context, so sentinel-keyed hints still see the Go error;
//   - a result with isError: true that no envelope layer has given steps to
//     (a handler's mcp.NewToolResultError, another layer's envelope) is
//     rendered as an envelope with the tool's steps first;
//   - a successful result of a tool with success hints is copied, with the
//     steps appended as a last text content item and under [MetaKey] in
//     _meta. Its structured content is left as it is.
//
// At the first call of a tool with a rule, the layer checks the tools its
// hints name against the server's tools (the server's own and the calling
// session's), as [Check] does: each problem is logged once as a warning,
// and a step naming a tool the server does not have (a typo,
// "search_node") is never sent. Keep [Check] in a test to fail the build
// instead.
//
// Calls of tools without a rule, and results no hint applies to, pass
// through untouched, without allocating.
func (r *Registry) Middleware() server.ToolHandlerMiddleware {
	if r.c.Empty() {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t := r.tool(ctx, req)
			if t == nil {
				return next(ctx, req)
			}
			a := r.call(ctx, t, req, handler(next))
			return a.Result, a.Err
		}
	}
}

// Stage returns the hints layer as a stage of core/chain, which
// middleware.Default runs in its one layer, where core/pipeline puts
// hints: around the limits and the declared check, whose refusals get the
// tool's steps too, and inside the pins and the sealing, whose do not
// (pipeline.Stage.Hinted). It does what [Registry.Middleware] does.
func (r *Registry) Stage() chain.Admission[mcp.CallToolRequest] {
	if r.c.Empty() {
		return chain.Admission[mcp.CallToolRequest]{At: pipeline.Hints, Gate: none{}}
	}
	return chain.Admission[mcp.CallToolRequest]{At: pipeline.Hints, Gate: stage{r}}
}

// none is the stage of a Registry without rules: it holds no frame.
type none struct{}

// Admit admits every call as it is.
func (none) Admit(_ context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	return req, nil
}

// stage is the hints of a Registry as a chain.Wrapper.
type stage struct{ r *Registry }

// Admit admits every call as it is: hints never refuse one.
func (stage) Admit(_ context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	return req, nil
}

// Wrap gives the tool's steps to what next answers.
func (s stage) Wrap(ctx context.Context, req mcp.CallToolRequest, next chain.Handler[mcp.CallToolRequest, envelope.Answer]) envelope.Answer {
	t := s.r.tool(ctx, req)
	if t == nil {
		return next.Handle(ctx, req)
	}
	return s.r.call(ctx, t, req, next)
}

// handler is next as core/chain calls it: a function type, which costs
// no allocation.
type handler server.ToolHandlerFunc

func (h handler) Handle(ctx context.Context, req mcp.CallToolRequest) envelope.Answer {
	res, err := h(ctx, req)
	return envelope.Answer{Result: res, Err: err}
}

// tool is the called tool's rule, nil for a tool without one. At the
// first call of a tool with a rule, the rules' references are checked
// against the server's tools.
func (r *Registry) tool(ctx context.Context, req mcp.CallToolRequest) *tool {
	t := r.c.Lookup(req.Params.Name)
	if t != nil && !r.c.Checked() {
		if s := server.ServerFromContext(ctx); s != nil {
			r.c.CheckOnce(ctx, func() ([]string, bool) { return serverTools(ctx, s), true })
		}
	}
	return t
}

// serverTools returns the names of the tools of s, the server serving
// ctx: its own and the calling session's.
func serverTools(ctx context.Context, s *server.MCPServer) []string {
	var names []string
	for name := range s.ListTools() {
		names = append(names, name)
	}
	if st, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		for name := range st.GetSessionTools() {
			names = append(names, name)
		}
	}
	return names
}

// Rules returns a copy of the registry's rules.
func (r *Registry) Rules() []Rule { return r.c.Rules() }

type tool = core.Tool[mcp.CallToolRequest, *mcp.CallToolResult]

func (r *Registry) call(ctx context.Context, t *tool, req mcp.CallToolRequest, next chain.Handler[mcp.CallToolRequest, envelope.Answer]) envelope.Answer {
	return core.Around(ctx, t, req, next, answers{r: r})
}

// answers is what core.Around asks of mcp-go's answers.
type answers struct {
	envelope.Reading
	r *Registry
}

func (answers) Err(a envelope.Answer) error { return a.Err }

func (answers) WithErr(a envelope.Answer, err error) envelope.Answer {
	return envelope.Answer{Result: a.Result, Err: err}
}

func (f answers) Failure(ctx, _ context.Context, t *tool, req mcp.CallToolRequest, a envelope.Answer, _ *core.Watch[mcp.CallToolRequest, *mcp.CallToolResult]) envelope.Answer {
	return envelope.Answer{Result: f.r.mergeResult(ctx, t, req, a.Result)}
}

func (f answers) Success(ctx context.Context, t *tool, req mcp.CallToolRequest, a envelope.Answer) envelope.Answer {
	return envelope.Answer{Result: f.r.success(ctx, t, req, a.Result)}
}

// mergeResult renders an error result that no envelope layer gave the
// tool's steps to as an envelope with those steps first. It renders with
// the Renderer of the envelope layer serving the server, so the defaults
// the user configured there are the ones kept or replaced.
func (r *Registry) mergeResult(ctx context.Context, t *tool, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	rr := envelope.RendererFrom(ctx, r.renderer)
	// Normalize keeps an envelope of ours and renders anything else (a
	// handler's own error result, whose text is not trusted) as that layer
	// would, so its code is known.
	base := rr.Normalize(ctx, req, res)
	env, ok := envelope.FromResult(base)
	if !ok {
		return res
	}
	if !t.Merge(ctx, req, env, rr.Core()) {
		return base
	}
	out := rr.Render(ctx, env)
	out.Meta = base.Meta
	// Keep what the result carried besides the envelope's own text.
	skipped := false
	for _, c := range base.Content {
		if !skipped && isText(c) {
			skipped = true
			continue
		}
		out.Content = append(out.Content, c)
	}
	return out
}

func isText(c mcp.Content) bool {
	switch v := c.(type) {
	case mcp.TextContent:
		return true
	case *mcp.TextContent:
		return v != nil
	}
	return false
}

// success returns a copy of res with the tool's success steps, or res
// itself when there are none; core.MergeSuccess decides what they change.
func (r *Registry) success(ctx context.Context, t *tool, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	var fields map[string]any
	if res.Meta != nil {
		fields = res.Meta.AdditionalFields
	}
	content, fields, ok := core.MergeSuccess(ctx, t, req, res, res.Content, fields, textItem)
	if !ok {
		return res
	}
	out := *res
	out.Content = content
	out.Meta = &mcp.Meta{AdditionalFields: fields}
	if res.Meta != nil {
		out.Meta.ProgressToken = res.Meta.ProgressToken
	}
	return &out
}

// textItem is mcp-go's text content item of text.
func textItem(text string) mcp.Content {
	return mcp.TextContent{Type: mcp.ContentTypeText, Text: text}
}
