package gosdk

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	corechain "github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/gosdk/internal/chainmark"
)

// HintRegistry holds the rules of a set of tools and the options they run
// with. It is immutable and safe for concurrent use; one HintRegistry can
// serve several servers.
type HintRegistry struct {
	c *hints.Registry[*mcp.CallToolRequest, *mcp.CallToolResult]
	// listOnCall is set once a tools/call has asked the layers inside for
	// the server's tools, so that a server that refuses tools/list is
	// asked once, not at every call.
	listOnCall atomic.Bool
}

// NewHintRegistry returns a HintRegistry for rules. Several rules for the
// same tool are merged, in order. It panics on a zero Rule.
func NewHintRegistry(rules []Rule, opts ...HintOption) *HintRegistry {
	return &HintRegistry{c: hints.NewRegistry(rules, request, opts...)}
}

// request rebuilds the go-sdk request of a call that another front's
// renderer describes.
func request(call core.Call) *mcp.CallToolRequest {
	params := &mcp.CallToolParamsRaw{Name: call.Tool}
	if raw, ok := call.Args.([]byte); ok {
		params.Arguments = raw
	}
	return &mcp.CallToolRequest{Params: params}
}

// Rules returns a copy of the registry's rules.
func (r *HintRegistry) Rules() []Rule { return r.c.Rules() }

// Hints returns the hints layer for rules with the default options, to
// add with the server's AddReceivingMiddleware next to [Middleware]:
//
//	s.AddReceivingMiddleware(gosdk.Middleware(), gosdk.Hints(
//		gosdk.For("shop_order",
//			gosdk.OnErrorIs(ErrSessionExpired, gosdk.Call("shop_authenticate", "with your API key, then retry")),
//			gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_search", "to find the order's ID")),
//			gosdk.OnSuccess(gosdk.Call("shop_track", "to follow the delivery")),
//		),
//	))
//
// See [HintRegistry.Middleware].
func Hints(rules ...Rule) mcp.Middleware { return NewHintRegistry(rules).Middleware() }

// Middleware returns the hints layer: for tools/call of a tool with a
// rule, it puts the tool's steps first in the envelope of a failure and
// adds them to a success; every other call and method passes through
// untouched, without allocating. It works on either side of [Middleware]
// (go-sdk runs the middleware added last, or first in one call, outermost):
//
//   - outside it (Middleware then Hints, in one AddReceivingMiddleware
//     call, is Middleware outermost; add Hints in a later call to put it
//     outside), the context passed on carries the tool's steps, and
//     whichever layer renders the failure further in (Middleware, the
//     validation of [AddTool]) puts them first in its envelope;
//   - inside it, a handler's Go error (a low-level handler's (nil, err), a
//     typed handler's returned error, which go-sdk keeps with SetError)
//     goes on carrying the steps, and Middleware puts them first once it
//     has classified the error; a result the handler built from text is
//     rendered here, with Middleware's renderer, as Middleware would;
//   - a successful result is copied, with the steps as a last text item and
//     under [NextStepsMetaKey] in _meta; its structured content is left as
//     it is.
//
// Once, at the first complete tools/list it passes on or at the first
// call of a tool with a rule (then by asking the layers inside it for
// tools/list, on the calling session), it checks the tools the hints name
// against the server's, as [Check] does: each problem is logged once as a
// warning, and a step naming a tool the server does not have is never
// sent. Keep [Check] in a test to fail the build instead.
//
// Without Middleware, a Go error passes on as go-sdk answers it, with no
// envelope to carry steps: keep Middleware in the chain, or pass the rules
// to it with [WithHints].
func (r *HintRegistry) Middleware() mcp.Middleware {
	if r.c.Empty() {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		h := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != methodCallTool {
				if method == methodListTools && !r.c.Checked() {
					return r.listed(ctx, method, req, next)
				}
				return next(ctx, method, req)
			}
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call == nil || call.Params == nil {
				return next(ctx, method, req)
			}
			t := r.tool(ctx, call, next)
			if t == nil {
				return next(ctx, method, req)
			}
			a := r.call(ctx, t, call, handler(next))
			return a.res, a.err
		}
		chainmark.Mark(h)
		return h
	}
}

// tool is the called tool's rule, nil for a tool without one. At the
// first call of a tool with a rule, the rules' references are checked
// against the tools next lists, unless a tools/list result checked them.
func (r *HintRegistry) tool(ctx context.Context, call *mcp.CallToolRequest, next mcp.MethodHandler) *hintTool {
	t := r.c.Lookup(call.Params.Name)
	if t != nil && !r.c.Checked() && r.listOnCall.CompareAndSwap(false, true) {
		r.c.CheckOnce(ctx, func() ([]string, bool) { return listNames(ctx, call.Session, next) })
	}
	return t
}

// hintGate is the hints of a registry as a stage of the Middleware's
// chain (core/chain's Wrapper), where core/pipeline puts hints: around
// the limits and the declared check, inside the pins and the sealing. raw,
// the server's handler without the Middleware, lists its tools.
type hintGate struct {
	r   *HintRegistry
	raw mcp.MethodHandler
}

// Admit admits every call as it is: hints never refuse one.
func (hintGate) Admit(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolRequest, error) {
	return req, nil
}

// Wrap gives the tool's steps to what next answers.
func (g hintGate) Wrap(ctx context.Context, req *mcp.CallToolRequest, next corechain.Handler[*mcp.CallToolRequest, answer]) answer {
	if req.Params == nil {
		return next.Handle(ctx, req)
	}
	t := g.r.tool(ctx, req, g.raw)
	if t == nil {
		return next.Handle(ctx, req)
	}
	return g.r.call(ctx, t, req, next)
}

// listed passes a tools/list on and checks the rules' tool references
// against its answer when it is the whole list (see hints' CheckOnce).
func (r *HintRegistry) listed(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
		r.learn(ctx, req, l)
	}
	return res, err
}

// learn checks the rules' tool references against l, a tools/list
// result to req, when it is the whole list (see hints' CheckOnce).
func (r *HintRegistry) learn(ctx context.Context, req mcp.Request, l *mcp.ListToolsResult) {
	if r == nil || r.c.Checked() || l == nil || l.NextCursor != "" {
		return
	}
	if lr, ok := req.(*mcp.ListToolsRequest); ok && lr.Params != nil && lr.Params.Cursor != "" {
		return // a later page: the first ones are not here
	}
	r.c.CheckOnce(ctx, func() ([]string, bool) { return toolNames(l.Tools), true })
}

// listNames asks the layers inside (and go-sdk's own handler) for every
// page of the server's tools, as a client's tools/list would, on the
// calling session; false when a page fails.
func listNames(ctx context.Context, ss *mcp.ServerSession, next mcp.MethodHandler) ([]string, bool) {
	var names []string
	ok := listPages(ctx, ss, next, func(l *mcp.ListToolsResult) { names = append(names, toolNames(l.Tools)...) })
	if !ok {
		return nil, false
	}
	return names, true
}

func toolNames(tools []*mcp.Tool) []string {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if t != nil {
			names = append(names, t.Name)
		}
	}
	return names
}

type hintTool = hints.Tool[*mcp.CallToolRequest, *mcp.CallToolResult]

func (r *HintRegistry) call(ctx context.Context, t *hintTool, req *mcp.CallToolRequest, next corechain.Handler[*mcp.CallToolRequest, answer]) answer {
	return hints.Around(ctx, t, req, next, hintAnswers{r})
}

// hintAnswers is what hints.Around asks of go-sdk's answers, read as the
// Middleware's adapter reads them.
type hintAnswers struct{ r *HintRegistry }

func (hintAnswers) Read(ctx context.Context, a answer) pipeline.Answer { return adapter{}.Read(ctx, a) }
func (hintAnswers) Err(a answer) error                                 { return a.err }
func (hintAnswers) WithErr(a answer, err error) answer                 { return answer{a.res, err} }

func (f hintAnswers) Failure(ctx, inner context.Context, _ *hintTool, req *mcp.CallToolRequest, a answer, w *hints.Watch[*mcp.CallToolRequest, *mcp.CallToolResult]) answer {
	return answer{f.r.failure(ctx, inner, req, a.res.(*mcp.CallToolResult), w), nil}
}

// Success: a result type only a layer inside knows passes as it is.
func (f hintAnswers) Success(ctx context.Context, t *hintTool, req *mcp.CallToolRequest, a answer) answer {
	if out, ok := a.res.(*mcp.CallToolResult); ok && out != nil {
		return answer{f.r.success(ctx, t, req, out), nil}
	}
	return a
}

// failure gives the tool's steps to an error result that no renderer
// further in gave them to. inner is the context the next handler got,
// which carries the tool's steps.
func (r *HintRegistry) failure(ctx, inner context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, w *hints.Watch[*mcp.CallToolRequest, *mcp.CallToolResult]) *mcp.CallToolResult {
	f := frontFrom(ctx)
	declares := f.declaresOutput(req.Params.Name)
	if _, ours := renderedEnvelope(res); ours {
		// Every renderer of this package renders under the context that
		// carries the steps; one that did not ask for them had none to add.
		return res
	}
	if err := res.GetError(); err != nil {
		// A typed handler's error: the renderer further out classifies it
		// (its sentinels, go-sdk's own errors) and asks for the steps.
		out := *res
		out.SetError(w.Attach(err))
		return &out
	}
	if !f.r.Normalizes() {
		return res
	}
	// A result the handler built from text: rendered as Middleware renders
	// it, under the context that carries this tool's steps.
	env := f.r.Text(inner, callFrom(ctx, req), textOf(res.Content))
	return f.result(req, env, nil, res, declares)
}

// success returns a copy of res with the tool's success steps, or res
// itself when there are none; hints.MergeSuccess decides what they change.
func (r *HintRegistry) success(ctx context.Context, t *hintTool, req *mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	content, meta, ok := hints.MergeSuccess(ctx, t, req, res, res.Content, res.Meta, textItem)
	if !ok {
		return res
	}
	out := *res
	out.Content = content
	out.Meta = meta
	return &out
}

// textItem is go-sdk's text content item of text.
func textItem(text string) mcp.Content { return &mcp.TextContent{Text: text} }
