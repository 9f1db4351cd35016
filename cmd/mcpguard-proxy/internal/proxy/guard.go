package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file holds the Guard and a tools/call in flight (call): how a call
// is read, admitted through the stages of core/pipeline's order, and
// released. What the guard answers is in answer.go, the tools it learns in
// learn.go, and how it reads and redacts a result in result.go and
// redactresult.go.

// Guard is the SDK-neutral part of the proxy: it reads the tool calls a
// client sends and rewrites what the upstream answers them with, the same
// way mcpguard's SDK fronts do, with the core's renderer. Both transports
// (stdio and streamable HTTP) use one Guard. It is safe for concurrent use.
type Guard struct {
	o     *options
	r     *envelope.Renderer
	metaR *envelope.Renderer // r's options and the toolFailure _meta, for an upstream that sends one
	tools toolTable          // from tools/list results (over HTTP, each session has its own: tooltable.go)
	// lastListed is the table a tools/list result was last learned into:
	// a schema it holds is compiled once for every table that lists it.
	lastListed atomic.Pointer[toolTable]
	known      bool // set once a tools/list result was read; guarded by mu
	mu         sync.Mutex
	in         *coreotel.Instrument // nil without WithTelemetry
	ids        *rpc.MintedIDs       // the ids of the requests it sends upstream
	state      *seal.Guard          // seals requestState; nil: WithoutStateSealing
	tasks      taskTable            // which call each task came from (tasks.go)

	// repeats runs the stages that wrap a call's answer (adapter.go),
	// with the repeated-failure guard; finishing runs them without it.
	repeats, finishing *chain.Chain[*call, reply]

	holds *limit.Holds // the calls the limits hold (hold.go); nil: none

	calls *calllog.Logger // the per-call record (calllog.go); nil: none
}

// tool is what the proxy learned of one tool from tools/list.
type tool struct {
	name     string
	declared *declared   // its inputSchema's check; nil without one
	output   bool        // it declares an outputSchema
	verdict  pin.Verdict // what the pins say of it (pin.go); Approved without pins
}

// gate is one stage of a call's admission after the repeated-failure
// guard (pins, sealing, limits, declared), a gate of the Guard's
// core/chain, which runs them in core/pipeline's order (Chain.Admit):
// admit's error refuses the call with that error's envelope. hold, when
// not nil, holds a call admit refused with refusal until the stage admits
// it (hold.go): what core/limit made of it, and the error to refuse it
// with unless it was admitted.
type gate struct {
	admit func(ctx context.Context, c *call) error
	hold  func(ctx context.Context, c *call, refusal error) (limit.Admission, error)
}

// Admit admits c, or refuses it with admit's error.
func (s gate) Admit(ctx context.Context, c *call) (*call, error) { return c, s.admit(ctx, c) }

// NewGuard returns a Guard configured by opts. It panics on bad
// configuration.
func newGuard(opts ...Option) *Guard {
	o := evaluate(opts)
	g := &Guard{o: o, r: o.renderer(), metaR: o.renderer(envelope.WithToolFailureMeta()), in: o.instrument(), ids: rpc.NewMintedIDs(), state: o.sealGuard(), holds: o.holds()}
	g.calls = o.callLogger()
	g.repeats, g.finishing = g.answers(g.gates()), g.answers(nil)
	return g
}

// gates are the stages of a call's admission after the repeated-failure
// guard, each at its stage: core/chain orders them.
func (g *Guard) gates() []chain.Admission[*call] {
	type at = chain.Admission[*call]
	var gates []at
	if g.o.pins != nil {
		gates = append(gates, at{At: pipeline.Pins, Gate: gate{admit: g.pinned}})
	}
	if g.state != nil {
		gates = append(gates, at{At: pipeline.Seal, Gate: gate{admit: g.openState}})
	}
	if g.o.rate != nil {
		gates = append(gates, at{At: pipeline.Limits, Gate: gate{admit: g.allowRate, hold: g.holdRate}})
	}
	if g.o.slots != nil {
		gates = append(gates, at{At: pipeline.Limits, Gate: gate{admit: g.acquireSlot, hold: g.holdSlot}})
	}
	if !g.o.noDeclared {
		gates = append(gates, at{At: pipeline.Declared, Gate: gate{admit: g.checkDeclared}})
	}
	return gates
}

// call is one tools/call in flight.
type call struct {
	id   []byte // the request's id, copied
	tool string
	args json.RawMessage // copied
	// sent is what the upstream is sent as the arguments when the check
	// read them otherwise than written (declared.go); nil: as written.
	sent  json.RawMessage
	start time.Time
	slot  *limit.Slot
	// freed: the slot was released. A call's answer and its deadline can
	// both release it (an answer on a resumed GET stream, resume.go).
	freed atomic.Bool
	// state is the call's requestState: as echoed, then opened (seal.go);
	// rounds are the load-shedding answers it had, as its state says.
	state    string
	hasState bool
	opened   bool
	rounds   int
	// answers: the call carries inputResponses, which a re-send of a
	// load-shedding answer would drop, so it is never shed (hold.go).
	answers bool
	// taskResult: this is a tasks/result request, answered as the call
	// that created task (tasks.go).
	taskResult bool
	task       string
	// plainArgs: the quick reader read the call (rpc/quick.go), so no object
	// in its arguments repeats a name or writes one in another case.
	plainArgs bool
	t         *tool      // the listed tool it calls, once looked up (toolOf)
	tools     *toolTable // the tools it is checked against; nil: the Guard's (tableOf)
	session   string     // the MCP session it came in (HTTP): its tasks are its session's (tasks.go)
	// params are the request's params while it is admitted, for what
	// only a call a limit refused reads (hold.go); era is what they say of
	// its client, once read.
	params rpc.Span
	era    era
	// key is the client the limits count the call to.
	key string
	// caller is who the call is from, for the repeated-failure guard;
	// run is what the guard admitted it with (admitted), ended once
	// (repeats.go).
	caller   limit.Caller
	run      chain.Run[*call, reply]
	admitted bool
	settled  atomic.Bool
	// note is what a limit that held the call noted, for its log record
	// (hold.go); nil: not held, or no record.
	note *calllog.Note
}

// tableOf is the tools c is checked against: its session's over HTTP,
// the Guard's own over stdio.
func (g *Guard) tableOf(c *call) *toolTable {
	if c.tools != nil {
		return c.tools
	}
	return &g.tools
}

// callOf is the call m, a tools/call request rpc.ReadClient admitted, makes,
// checked against the tools t: from what the quick reader read, or by
// newCall. It copies what it keeps.
func (g *Guard) callOf(m *rpc.Message, t *toolTable) *call {
	if !m.Quick {
		c := newCall(m.ID, m.Params)
		c.tools = t
		return c
	}
	c := &call{tools: t}
	g.quickCall(c, m, bytes.Clone(m.ID))
	return c
}

// rpc.QuickCall fills c, a new call or an emptied one whose arguments'
// buffer it reuses (newRequest), with what the quick reader read of m, and
// id, a copy of m's id.
func (g *Guard) quickCall(c *call, m *rpc.Message, id []byte) {
	c.id, c.start, c.args, c.plainArgs, c.params = id, time.Now(), appendArgs(c.args, m.Call.Args), true, m.Params
	if c.t = g.tableOf(c).getBytes(m.Call.Tool); c.t != nil {
		c.tool = c.t.name
	} else {
		c.tool = string(m.Call.Tool)
	}
}

// appendArgs is a copy of args in buf's array, when buf has one (a
// spare request's, newRequest), else a new copy; nil when args is.
func appendArgs(buf, args []byte) []byte {
	if args == nil || buf == nil {
		return bytes.Clone(args)
	}
	return append(buf[:0], args...)
}

// newCall reads a tools/call request's params, which rpc.ReadClient admitted
// (so every reader reads them alike). It copies what it keeps.
func newCall(id, params []byte) *call {
	c := &call{id: bytes.Clone(id), start: time.Now(), params: params}
	_ = rpc.Walk(params, false, func(name []byte, v rpc.Span, _ int) error {
		switch string(name) {
		case "name":
			c.tool, _ = rpc.Unquote(v)
		case "arguments":
			c.args = bytes.Clone(v)
		case "requestState":
			// A state that is not a string is kept as its text, which
			// does not open: the upstream never reads it.
			var ok bool
			if c.state, ok = rpc.Unquote(v); !ok {
				c.state = string(v)
			}
			c.hasState = (ok && c.state != "") || (!ok && string(v) != "null")
		case "inputResponses":
			c.answers = string(v) != "null"
		}
		return nil
	})
	return c
}

func (c *call) core() envelope.Call { return envelope.Call{Tool: c.tool, Args: c.args} }

// hasTool reports whether c's tool may be one the server has: its
// complete tools/list names it, or the proxy has no complete list yet.
func (g *Guard) hasTool(c *call) bool { return !g.tableOf(c).complete.Load() || g.listed(c) }

// unknownTool answers a call of a tool the server's complete tools/list
// does not name (core/chain's Serve asks hasTool): -32602, as the mcp-go
// and go-sdk fronts answer an unknown tool, naming the tools that exist.
func (g *Guard) unknownTool(_ context.Context, c *call) reply {
	names := g.tableOf(c).names(maxNamedTools)
	list := strings.Join(names, ", ")
	if len(names) > maxNamedTools {
		list = strings.Join(names[:maxNamedTools], ", ") + ", …"
	}
	if len(names) == 0 {
		list = "none"
	}
	// The name is the client's, redacted all the same: a secret it sent
	// must not come back (core/redact), as the go-sdk front answers it.
	name := g.r.Redactor().ForCall(c.args).String(safe.Value(c.tool))
	msg := "unknown tool " + strconv.Quote(name) + "; this server's tools (tools/list lists them): " + list
	e := rpcErrorMember(-32602, msg)
	return reply{c: c, msg: errorResponse(c.id, e), rpcErr: e, code: -32602, message: msg,
		ans: pipeline.Answer{Err: true, Protocol: true}}
}

// maxNamedTools bounds the tools an unknown tool's answer names.
const maxNamedTools = 50

// admit answers a call of an unknown tool, then passes the call through
// the stages of its admission in the fronts' order (core/pipeline's
// Admission): the repeated-failure guard, the pins, the opening of its
// requestState, then the rate and concurrency limits and the declared
// input schema, before it is sent upstream. A refused call gets the
// answer to send instead, and holds no slot. A call a limit holds
// (hold.go) waits here.
func (g *Guard) admit(ctx context.Context, c *call, key string) []byte {
	out, held := g.admitOrHold(ctx, c, key)
	if held != nil {
		return held(ctx)
	}
	return out
}

// admitOrHold is admit for a transport that holds calls off its reading
// loop: a call a limit holds is not waited for, held then holds it and
// returns what admit would have.
func (g *Guard) admitOrHold(ctx context.Context, c *call, key string) (out []byte, held func(context.Context) []byte) {
	defer func() { c.params = nil }() // the request's bytes, which its reader reuses
	if !g.hasTool(c) {
		// before any stage of admission, as the fronts answer it; logged
		return g.repeats.Serve(ctx, c, nil, chain.HandlerFunc[*call, reply](g.unknownTool)).msg, nil
	}
	if out := g.admitRepeat(ctx, c); out != nil {
		return out, nil
	}
	c.key = key
	return g.pass(ctx, c, 0)
}

// refusal is the envelope that answers c, refused by the stage at with
// err: with the tool's hints when core/pipeline says that stage's
// refusals get them (pipeline.Stage.Hinted), as the fronts' hints layer,
// which sits at that place in their chains, gives them.
func (g *Guard) refusal(ctx context.Context, c *call, at pipeline.Stage, err error) *envelope.Envelope {
	env := g.r.Error(ctx, c.core(), err)
	if at.Hinted() {
		g.hint(ctx, c, env)
	}
	return env
}

// allowRate takes a token of the client's rate budget.
func (g *Guard) allowRate(_ context.Context, c *call) error {
	tool := "" // one budget per client, shared by its tools
	if g.o.ratePerTool {
		tool = c.tool
	}
	return g.o.rate.Allow(tool, c.key, time.Now())
}

// acquireSlot takes one of the concurrency slots, which the call holds
// until it is answered.
func (g *Guard) acquireSlot(ctx context.Context, c *call) error {
	s, err := g.o.slots.Acquire(ctx, c.tool)
	if err != nil {
		return err
	}
	c.slot = &s
	return nil
}

// done releases what the call holds.
func (g *Guard) done(c *call) {
	if c.slot != nil && c.freed.CompareAndSwap(false, true) {
		c.slot.Release(nil)
	}
}

// release releases what the call holds once it was answered, or at
// deadline when the server may still be running it (or at its answer on
// a resumed stream, if that comes first).
func (g *Guard) release(c *call, answered bool, deadline time.Time) {
	if answered || c.slot == nil {
		g.done(c)
		return
	}
	time.AfterFunc(time.Until(deadline), func() { g.done(c) })
}
