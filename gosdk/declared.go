package gosdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	corechain "github.com/mcpguard/mcpguard/core/chain"
	coredeclared "github.com/mcpguard/mcpguard/core/declared"
)

// WithoutDeclaredSchemas turns off the enforcement of the input schemas
// tools declare for the named tools or, with no names, for the whole
// Middleware.
func WithoutDeclaredSchemas(tools ...string) Option {
	return func(o *options) {
		if len(tools) == 0 {
			o.declaredOff = true
		}
		o.declaredExcept = append(o.declaredExcept, tools...)
	}
}

// declared enforces, inside the Middleware, the input schema each tool
// declares, for go-sdk's low-level Server.AddTool tools (which go-sdk does
// not validate) and for mcp.AddTool tools (whose own validation would
// answer in text): the call is checked first with core/declared
// and a violation answered with the validation_error envelope gosdk.AddTool
// gives. Each call finds its tool's definition with a tools/list of the
// Middleware's own, served by the handlers inside it, so that a tool
// added at run time, or removed and added again under its name with
// another schema, is checked against the schema go-sdk calls it with from
// its first call; the tools/list results that pass through the Middleware
// are the fallback when a call has no session to list with. Each
// definition (each *Tool go-sdk lists: a tool added again is a new one) is
// compiled once.
type declared struct {
	opts   []coredeclared.Option
	except map[string]bool
}

// declaredTools is what one server's Middleware knows of its tools: one
// Middleware value may serve several servers, each with its own tools.
type declaredTools struct {
	*declared
	tools sync.Map // tool name -> *declaredTool
}

type declaredTool struct {
	def  *mcp.Tool
	once sync.Once
	d    *coredeclared.Checker
}

func newDeclared(o *options) *declared {
	if o.declaredOff {
		return nil
	}
	d := &declared{except: map[string]bool{}}
	for _, n := range o.declaredExcept {
		d.except[n] = true
	}
	if o.logger != nil {
		d.opts = append(d.opts, coredeclared.WithLogger(o.logger))
	}
	return d
}

// learn records the definitions a tools/list result lists.
func (l *declaredTools) learn(res *mcp.ListToolsResult) {
	if l == nil || res == nil {
		return
	}
	for _, t := range res.Tools {
		if t == nil {
			continue
		}
		if v, ok := l.tools.Load(t.Name); !ok || v.(*declaredTool).def != t {
			l.tools.Store(t.Name, &declaredTool{def: t})
		}
	}
}

// tools returns the table of one server's tools, which its tools/list
// results teach (learn).
func (c *declared) tools() *declaredTools {
	if c == nil {
		return nil
	}
	return &declaredTools{declared: c}
}

// declaredGate is the declared check, a gate of the Middleware's chain
// (core/chain), or a layer of its own behind limits: it checks a
// call against its tool's definition in the listing raw gives.
type declaredGate struct {
	l   *declaredTools
	raw mcp.MethodHandler
}

// Admit checks r's arguments: r, with a lossless spelling converted in a
// copy, or the validation_error that refuses it.
func (g declaredGate) Admit(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolRequest, error) {
	if r.Params == nil || g.l.except[r.Params.Name] {
		return r, nil
	}
	d := g.l.lookup(ctx, r, g.raw)
	if d == nil {
		return r, nil
	}
	converted, err := d.Check(ctx, r.Params.Arguments, nil, rendererFrom(ctx).Redactor())
	if err != nil {
		return r, err
	}
	if converted != nil {
		r = withArguments(r, converted)
	}
	return r, nil
}

// gateLayer is g as a layer of the Middleware's own, for a gate behind a
// layer of the user's (limits): a refusal is its envelope.
func gateLayer(g corechain.Gate[*mcp.CallToolRequest]) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := req.(*mcp.CallToolRequest)
			if !ok || method != methodCallTool || r.Params == nil {
				return next(ctx, method, req)
			}
			in, err := g.Admit(ctx, r)
			if err != nil {
				return renderError(ctx, r, err, false), nil
			}
			return next(ctx, method, in)
		}
	}
}

// withArguments is a copy of req with other arguments: the request go-sdk
// decoded is not modified.
func withArguments(req *mcp.CallToolRequest, args json.RawMessage) *mcp.CallToolRequest {
	out := *req
	p := *req.Params
	p.Arguments = args
	out.Params = &p
	return &out
}

// lookup returns the checker of the called tool's definition, or nil when
// there is nothing to check. The definition is the one go-sdk holds now,
// found with a tools/list of the Middleware's own served inside it: a
// tool added at run time, or removed and added again under a known name
// with another schema, is checked against the schema go-sdk will call it
// with from its first call. A name go-sdk does not know is left to go-sdk,
// which answers that the tool is unknown. Without a session to list with,
// the last definition a tools/list showed is used.
func (l *declaredTools) lookup(ctx context.Context, r *mcp.CallToolRequest, next mcp.MethodHandler) *coredeclared.Checker {
	name := r.Params.Name
	def, listed := currentTool(ctx, r.Session, next, name)
	v, ok := l.tools.Load(name)
	switch {
	case listed && def == nil:
		return nil // unknown to go-sdk: it answers
	case listed && (!ok || v.(*declaredTool).def != def):
		v = &declaredTool{def: def}
		l.tools.Store(name, v)
	case !ok:
		return nil
	}
	t := v.(*declaredTool)
	t.once.Do(func() {
		if !bindsItself(t.def) { // gosdk.AddTool's tools are checked by their binder
			t.d = compileTool(t.def, l.opts)
		}
	})
	if t.d == nil || !t.d.Enforced() {
		if t.d != nil {
			_, _ = t.d.Check(ctx, nil, nil, nil) // the one warning, for a schema that is not enforced
		}
		return nil
	}
	return t.d
}

func compileTool(t *mcp.Tool, opts []coredeclared.Option) *coredeclared.Checker {
	var schema []byte
	switch s := t.InputSchema.(type) {
	case json.RawMessage:
		schema = s
	case nil:
		return nil
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil
		}
		schema = b
	}
	return coredeclared.New(t.Name, schema, opts...)
}
