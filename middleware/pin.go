package middleware

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/internal/identity"
)

// WithPins holds the server's tools to the definitions approved in p's
// lock (core/pin): a call to a tool whose definition changed since it was
// approved, or that nobody approved, is refused with an access_denied
// envelope naming the tool, not retryable, and the handler does not run.
// p logs one line per definition held back, with the difference. Add
// [PinListing] to the server too, so that such a tool is also left out of
// tools/list:
//
//	lock, err := pin.ReadLock(f) // written by mcpguard-audit --baseline
//	pins := pin.New(lock, logger)
//	s := server.NewMCPServer("plugins", "1.0.0", middleware.PinListing(pins))
//	s.Use(middleware.Default(middleware.WithPins(pins))...)
//
// The layer sits right inside envelope, outside everything that admits a
// call, so that a held-back call takes no token. An approved tool's call
// costs a map read: the definition is read again only when the tool was
// registered again (s.AddTool, s.SetTools, a session's tools). It panics
// on a nil p.
func WithPins(p *pin.Pins) Option {
	if p == nil {
		panic("middleware.WithPins: nil pins; build them with pin.New")
	}
	return func(o *defaultOptions) { o.pins = p }
}

// PinListing is the server option that leaves out of tools/list every
// tool p holds back ([WithPins]), so that its changed text never reaches
// the client. It adds an after-list-tools hook to the server's hooks
// (server.WithHooks), creating them if the server has none: give it after
// server.WithHooks, which replaces the hooks. A page of tools/list may
// then hold fewer tools than the page size. It panics on a nil p.
func PinListing(p *pin.Pins) server.ServerOption {
	if p == nil {
		panic("middleware.PinListing: nil pins; build them with pin.New")
	}
	v := verdictsOf(p)
	return func(s *server.MCPServer) {
		h := s.GetHooks()
		if h == nil {
			h = &server.Hooks{}
			server.WithHooks(h)(s)
		}
		h.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
			if res != nil {
				res.Tools = v.listed(ctx, p, s, res.Tools)
			}
		})
	}
}

// pinGate refuses calls to the tools p holds back, a gate of Default's
// one layer (core/chain).
type pinGate struct {
	p *pin.Pins
	v *verdicts
}

func newPinGate(p *pin.Pins) pinGate { return pinGate{p, verdictsOf(p)} }

// Admit refuses a call of a tool whose definition p does not approve.
func (g pinGate) Admit(ctx context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	if name, verdict := g.v.called(ctx, g.p, req.Params.Name); verdict != pin.Approved {
		return req, pin.Refusal(name, verdict)
	}
	return req, nil
}

// verdicts remembers what one *pin.Pins said of each tool a server holds,
// by the identity of its registration, so that a call reads a definition
// again only when it was registered again. The listing hook and the call
// layer share it: a listing that finds a definition changed in place
// (a schema's map edited without registering the tool again, which an
// identity cannot see) holds its calls back too.
type verdicts struct {
	byTool sync.Map // pinKey -> *pinEntry
}

type pinKey struct {
	srv  weak.Pointer[server.MCPServer]
	name string
}

// pinEntry is a verdict on one registration. def keeps the definition's
// maps and slices alive, so that their addresses, part of id, cannot be
// reused meanwhile.
type pinEntry struct {
	def     mcp.Tool
	id      toolID
	name    string
	verdict pin.Verdict
}

// allVerdicts holds the verdicts of each *pin.Pins, so that PinListing
// and WithPins, given the same pins, share them. The key is weak: pins
// that are collected take their verdicts along.
var allVerdicts sync.Map // weak.Pointer[pin.Pins] -> *verdicts

func verdictsOf(p *pin.Pins) *verdicts {
	wp := weak.Make(p)
	v, loaded := allVerdicts.LoadOrStore(wp, &verdicts{})
	if !loaded {
		runtime.AddCleanup(p, func(wp weak.Pointer[pin.Pins]) { allVerdicts.Delete(wp) }, wp)
	}
	return v.(*verdicts)
}

// called returns the verdict on the definition of the called tool that
// the server in ctx holds now. A handler run outside a server
// (middleware.Wrap in a unit test) or a tool the server does not know
// (mcp-go answers that) has nothing to check.
func (v *verdicts) called(ctx context.Context, p *pin.Pins, name string) (string, pin.Verdict) {
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return name, pin.Approved
	}
	st, ok := registered(ctx, srv, name)
	if !ok {
		return name, pin.Approved
	}
	key := pinKey{srv: weak.Make(srv), name: name}
	id := toolIDOf(&st.Tool)
	if e, ok := v.byTool.Load(key); ok && e.(*pinEntry).id == id {
		return e.(*pinEntry).name, e.(*pinEntry).verdict
	}
	e := v.review(ctx, p, key, st.Tool, id)
	return e.name, e.verdict
}

// registered is the definition of the named tool mcp-go calls in ctx:
// the session's own first, then the server's.
func registered(ctx context.Context, srv *server.MCPServer, name string) (server.ServerTool, bool) {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := s.GetSessionTools()[name]; ok {
			return st, true
		}
	}
	if g := srv.GetTool(name); g != nil {
		return *g, true
	}
	return server.ServerTool{}, false
}

// listed returns the tools of a listing that p approves, in order.
// Every definition is read: a listing is what reaches the client.
func (v *verdicts) listed(ctx context.Context, p *pin.Pins, srv *server.MCPServer, tools []mcp.Tool) []mcp.Tool {
	kept := make([]mcp.Tool, 0, len(tools))
	wp := weak.Make(srv)
	for _, t := range tools {
		if e := v.review(ctx, p, pinKey{srv: wp, name: t.Name}, t, toolIDOf(&t)); e.verdict == pin.Approved {
			kept = append(kept, t)
		}
	}
	return kept
}

// review asks p about a definition as tools/list encodes it and
// remembers the verdict under key.
func (v *verdicts) review(ctx context.Context, p *pin.Pins, key pinKey, t mcp.Tool, id toolID) *pinEntry {
	e := &pinEntry{def: t, id: id, name: t.Name, verdict: pin.Unreadable}
	if b, err := json.Marshal(t); err == nil {
		e.name, e.verdict = p.Review(ctx, b)
		if e.name == "" {
			e.name = t.Name
		}
	}
	v.byTool.Store(key, e)
	return e
}

// toolID identifies one registration of a tool's pinned parts (name,
// title, description, schemas, annotations): strings by value, maps and
// slices by address, as mcp-go copies a tool's struct but shares its
// maps. A tool registered again is built again, with new maps, and so
// reviewed again.
type toolID struct {
	name, title, description string
	in, out                  schemaID
	annotations              annotationsID
}

type schemaID struct {
	typ         string
	props, defs unsafe.Pointer
	required    *string
	requiredLen int
	extra       identity.Ref
	raw         *byte
	rawLen      int
}

type annotationsID struct {
	title                                    string
	readOnly, destructive, idempotent, world int8
}

func toolIDOf(t *mcp.Tool) toolID {
	a := &t.Annotations
	return toolID{
		name: t.Name, title: t.Title, description: t.Description,
		in:  schemaIDOf(mcp.ToolArgumentsSchema(t.InputSchema), t.RawInputSchema),
		out: schemaIDOf(mcp.ToolArgumentsSchema(t.OutputSchema), t.RawOutputSchema),
		annotations: annotationsID{title: a.Title, readOnly: hint(a.ReadOnlyHint), destructive: hint(a.DestructiveHint),
			idempotent: hint(a.IdempotentHint), world: hint(a.OpenWorldHint)},
	}
}

func schemaIDOf(s mcp.ToolArgumentsSchema, raw json.RawMessage) schemaID {
	return schemaID{
		typ:         s.Type,
		props:       reflect.ValueOf(s.Properties).UnsafePointer(),
		defs:        reflect.ValueOf(s.Defs).UnsafePointer(),
		required:    unsafe.SliceData(s.Required),
		requiredLen: len(s.Required),
		extra:       identity.Of(s.AdditionalProperties),
		raw:         unsafe.SliceData(raw),
		rawLen:      len(raw),
	}
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
