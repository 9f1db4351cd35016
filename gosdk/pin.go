package gosdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/internal/identity"
)

// WithPins holds the server's tools to the definitions approved in p's
// lock (core/pin), as the mcp-go front's middleware.WithPins does: a tool
// whose definition changed since it was approved, or that nobody
// approved, is left out of every tools/list result, and a call to it is
// refused with an access_denied envelope naming the tool, not retryable;
// the handler does not run. p logs one line per definition held back,
// with the difference:
//
//	lock, err := pin.ReadLock(f) // written by mcpguard-audit --baseline
//	gosdk.Install(server, gosdk.WithPins(pin.New(lock, logger)))
//
// The step sits inside the Middleware's guard, outside the sealing step,
// hints, the limits and the declared check, so that a held-back call takes
// no token. Each call finds the called tool's definition as go-sdk holds it
// now, with the tools/list the declared check makes anyway, and reads it
// again only when the tool was registered again (s.AddTool) or edited: an
// approved tool's call costs a map read. A call with no session (a
// handler called directly in a test) is held to the last listing's
// verdict. It panics on a nil p.
func WithPins(p *pin.Pins) Option {
	if p == nil {
		panic("gosdk.WithPins: nil pins; build them with pin.New")
	}
	return func(o *options) { o.pins = p }
}

// pinned is what one server's Middleware knows of its tools' verdicts: one
// Middleware value may serve several servers, each with its own tools.
type pinned struct {
	p      *pin.Pins
	byName sync.Map // tool name -> *pinEntry
}

// pinEntry is a verdict on one registration of a tool.
type pinEntry struct {
	id      toolID
	name    string
	verdict pin.Verdict
}

func newPinned(p *pin.Pins) *pinned {
	if p == nil {
		return nil
	}
	return &pinned{p: p}
}

// pinGate is the pins' step, a gate of the Middleware's chain
// (core/chain): it refuses the calls to tools the pins hold back, their
// definitions found in the listing raw gives.
type pinGate struct {
	t   *pinned
	raw mcp.MethodHandler
}

// Admit refuses a call of a tool whose definition the pins do not
// approve.
func (g pinGate) Admit(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolRequest, error) {
	if r.Params == nil {
		return r, nil
	}
	if name, v := g.t.called(ctx, r, g.raw); v != pin.Approved {
		return r, pin.Refusal(name, v)
	}
	return r, nil
}

// called returns the verdict on the called tool's current definition. A
// tool go-sdk does not know is left to go-sdk, which answers that it is
// unknown.
func (t *pinned) called(ctx context.Context, r *mcp.CallToolRequest, next mcp.MethodHandler) (string, pin.Verdict) {
	name := r.Params.Name
	def, listed := currentTool(ctx, r.Session, next, name)
	v, known := t.byName.Load(name)
	switch {
	case listed && def == nil, !listed && !known:
		return name, pin.Approved
	case !listed:
		return v.(*pinEntry).name, v.(*pinEntry).verdict
	case known && v.(*pinEntry).id == toolIDOf(def):
		return v.(*pinEntry).name, v.(*pinEntry).verdict
	}
	e := t.review(ctx, def)
	return e.name, e.verdict
}

// filter returns l without the tools the pins hold back. Every listed
// definition is read: a listing is what reaches the client.
func (t *pinned) filter(ctx context.Context, l *mcp.ListToolsResult) mcp.Result {
	if t == nil {
		return l
	}
	kept := make([]*mcp.Tool, 0, len(l.Tools))
	for _, tool := range l.Tools {
		if tool != nil && t.review(ctx, tool).verdict == pin.Approved {
			kept = append(kept, tool)
		}
	}
	if len(kept) == len(l.Tools) {
		return l
	}
	out := *l
	out.Tools = kept
	return &out
}

// review asks the pins about a definition as tools/list encodes it and
// remembers the verdict.
func (t *pinned) review(ctx context.Context, def *mcp.Tool) *pinEntry {
	e := &pinEntry{id: toolIDOf(def), name: def.Name, verdict: pin.Unreadable}
	if b, err := json.Marshal(def); err == nil {
		e.name, e.verdict = t.p.Review(ctx, b)
		if e.name == "" {
			e.name = def.Name
		}
	}
	t.byName.Store(def.Name, e)
	return e
}

// toolID identifies one registration of a tool's pinned parts (name,
// title, description, schemas, annotations): go-sdk lists the *mcp.Tool
// it was given, so the pointer, and the fields a program could edit
// through it before adding it again, strings by value and schemas by
// address.
type toolID struct {
	tool                     *mcp.Tool
	name, title, description string
	in, out                  identity.Ref
	annotations              mcp.ToolAnnotations
	destructive, world       int8
}

func toolIDOf(t *mcp.Tool) toolID {
	id := toolID{tool: t, name: t.Name, title: t.Title, description: t.Description,
		in: identity.Of(t.InputSchema), out: identity.Of(t.OutputSchema), destructive: -2, world: -2}
	if a := t.Annotations; a != nil {
		id.annotations = *a
		id.annotations.DestructiveHint, id.annotations.OpenWorldHint = nil, nil
		id.destructive, id.world = hint(a.DestructiveHint), hint(a.OpenWorldHint)
	}
	return id
}

func hint(b *bool) int8 {
	switch {
	case b == nil:
		return -1
	case *b:
		return 1
	}
	return 0
}
