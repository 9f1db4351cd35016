package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

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
	// stages are the checks a call passes before it is sent upstream, in
	// core/pipeline's admission order.
	stages  []stage
	known   bool // set once a tools/list result was read; guarded by mu
	mu      sync.Mutex
	in      *coreotel.Instrument // nil without WithTelemetry
	repeats limit.RepeatStage[*call]
	ids     *mintedIDs  // the ids of the requests it sends upstream
	state   *seal.Guard // seals requestState; nil: WithoutStateSealing
	tasks   taskTable   // which call each task came from (tasks.go)

	holds *limit.Holds // the calls the limits hold (hold.go); nil: none
}

// tool is what the proxy learned of one tool from tools/list.
type tool struct {
	name     string
	declared *declared   // its inputSchema's check; nil without one
	output   bool        // it declares an outputSchema
	verdict  pin.Verdict // what the pins say of it (pin.go); Approved without pins
}

// stage is one step of a call's admission, at its place in
// core/pipeline's order: answer, when not nil, answers the call itself
// (the repeated-failure guard, the pins, the sealing), else check's
// non-nil error refuses it with that error's envelope.
type stage struct {
	at     pipeline.Stage
	answer func(ctx context.Context, c *call) []byte
	check  func(ctx context.Context, c *call, key string) error
	// hold, when not nil, holds a call check refused with refusal until
	// the stage admits it (hold.go): what core/limit made of it, and the
	// error to refuse it with unless it was admitted.
	hold func(ctx context.Context, c *call, key string, refusal error) (limit.Admission, error)
}

// NewGuard returns a Guard configured by opts. It panics on bad
// configuration.
func newGuard(opts ...Option) *Guard {
	o := evaluate(opts)
	g := &Guard{o: o, r: o.renderer(), metaR: o.renderer(envelope.WithToolFailureMeta()), in: o.instrument(), ids: newMintedIDs(), state: o.sealGuard(), holds: o.holds()}
	g.repeats = limit.NewRepeatStage(o.repeats, readRepeat)
	var layers pipeline.Layers[stage]
	layers.Add(pipeline.Repeats, stage{at: pipeline.Repeats, answer: g.admitRepeat})
	if o.pins != nil {
		layers.Add(pipeline.Pins, stage{at: pipeline.Pins, answer: g.pinned})
	}
	if g.state != nil {
		layers.Add(pipeline.Seal, stage{at: pipeline.Seal, answer: g.openState})
	}
	if o.rate != nil {
		layers.Limits = append(layers.Limits, stage{at: pipeline.Limits, check: g.allowRate, hold: g.holdRate})
	}
	if o.slots != nil {
		layers.Limits = append(layers.Limits, stage{at: pipeline.Limits, check: g.acquireSlot, hold: g.holdSlot})
	}
	if !o.noDeclared {
		layers.Declared = append(layers.Declared, stage{at: pipeline.Declared, check: func(ctx context.Context, c *call, _ string) error { return g.checkDeclared(ctx, c) }})
	}
	g.stages = layers.Ordered()
	return g
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
	// plainArgs: the quick reader read the call (quick.go), so no object
	// in its arguments repeats a name or writes one in another case.
	plainArgs bool
	t         *tool      // the listed tool it calls, once looked up (toolOf)
	tools     *toolTable // the tools it is checked against; nil: the Guard's (tableOf)
	session   string     // the MCP session it came in (HTTP): its tasks are its session's (tasks.go)
	// params are the request's params while it is admitted, for what
	// only a call a limit refused reads (hold.go); era is what they say of
	// its client, once read.
	params span
	era    era
	// caller is who the call is from, for the repeated-failure guard;
	// ticket is what the guard admitted it with, settled once (repeats.go).
	caller  limit.Caller
	ticket  limit.StageTicket
	settled atomic.Bool
}

// tableOf is the tools c is checked against: its session's over HTTP,
// the Guard's own over stdio.
func (g *Guard) tableOf(c *call) *toolTable {
	if c.tools != nil {
		return c.tools
	}
	return &g.tools
}

// callOf is the call m, a tools/call request readClient admitted, makes,
// checked against the tools t: from what the quick reader read, or by
// newCall. It copies what it keeps.
func (g *Guard) callOf(m *message, t *toolTable) *call {
	if !m.quick {
		c := newCall(m.ID, m.Params)
		c.tools = t
		return c
	}
	c := &call{tools: t}
	g.quickCall(c, m, bytes.Clone(m.ID))
	return c
}

// quickCall fills c, a new call or an emptied one whose arguments'
// buffer it reuses (newRequest), with what the quick reader read of m, and
// id, a copy of m's id.
func (g *Guard) quickCall(c *call, m *message, id []byte) {
	c.id, c.start, c.args, c.plainArgs, c.params = id, time.Now(), appendArgs(c.args, m.call.args), true, m.Params
	if c.t = g.tableOf(c).getBytes(m.call.tool); c.t != nil {
		c.tool = c.t.name
	} else {
		c.tool = string(m.call.tool)
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

// newCall reads a tools/call request's params, which readClient admitted
// (so every reader reads them alike). It copies what it keeps.
func newCall(id, params []byte) *call {
	c := &call{id: bytes.Clone(id), start: time.Now(), params: params}
	_ = walk(params, false, func(name []byte, v span, _ int) error {
		switch string(name) {
		case "name":
			c.tool, _ = unquote(v)
		case "arguments":
			c.args = bytes.Clone(v)
		case "requestState":
			// A state that is not a string is kept as its text, which
			// does not open: the upstream never reads it.
			var ok bool
			if c.state, ok = unquote(v); !ok {
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

// unknownTool is the answer to a call of a tool the server's complete
// tools/list does not name, nil otherwise: -32602, as the mcp-go and
// go-sdk fronts answer an unknown tool, naming the tools that exist.
func (g *Guard) unknownTool(c *call) []byte {
	t := g.tableOf(c)
	if !t.complete.Load() || g.listed(c) {
		return nil
	}
	names := t.names(maxNamedTools)
	list := strings.Join(names, ", ")
	if len(names) > maxNamedTools {
		list = strings.Join(names[:maxNamedTools], ", ") + ", …"
	}
	if len(names) == 0 {
		list = "none"
	}
	return rpcError(c.id, -32602, "unknown tool "+strconv.Quote(safe.Value(c.tool))+
		"; this server's tools (tools/list lists them): "+list)
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
	if out := g.unknownTool(c); out != nil {
		return out, nil // before any stage, as mcp-go answers it
	}
	return g.pass(ctx, c, key, 0)
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
func (g *Guard) allowRate(_ context.Context, c *call, key string) error {
	tool := "" // one budget per client, shared by its tools
	if g.o.ratePerTool {
		tool = c.tool
	}
	return g.o.rate.Allow(tool, key, time.Now())
}

// acquireSlot takes one of the concurrency slots, which the call holds
// until it is answered.
func (g *Guard) acquireSlot(ctx context.Context, c *call, _ string) error {
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

// learn reads a tools/list result passing through, asked for in the
// generation gen of the table t (nil: an answer no table learns from,
// one replayed on another stream): which tools exist, which declare an
// output schema and, with pins, which the pins hold back. It returns the
// result the client is sent: result itself, or without the tools held
// back (pin.go).
func (g *Guard) learn(t *toolTable, gen uint64, result []byte) []byte {
	shown, _, _ := g.learnPage(t, gen, result)
	return shown
}

// learnPage is learn, which also returns the result's nextCursor ("" on
// the last page, or a result the proxy cannot read) and whether it is
// stale: t forgot its tools since gen (they changed), and did not learn it.
func (g *Guard) learnPage(t *toolTable, gen uint64, result []byte) (shown []byte, next string, stale bool) {
	if t == nil && g.o.pins == nil {
		return result, "", false
	}
	var r struct {
		Tools      []listedTool `json:"tools"`
		NextCursor *string      `json:"nextCursor"`
	}
	if json.Unmarshal(result, &r) != nil {
		return g.unreadListing(result), "", false
	}
	names := make([]string, 0, len(r.Tools))
	entries := make([]*tool, 0, len(r.Tools))
	for i := range r.Tools {
		l := &r.Tools[i]
		entry := &tool{name: l.Name, output: len(l.OutputSchema) > 0 && string(l.OutputSchema) != "null", verdict: g.review(l)}
		if len(l.InputSchema) > 0 && string(l.InputSchema) != "null" && t != nil {
			entry.declared = g.compiled(t, l.Name, l.InputSchema)
		}
		entries = append(entries, entry)
		names = append(names, l.Name)
	}
	shown = g.shown(result, r.Tools, entries)
	if r.NextCursor != nil {
		next = *r.NextCursor
	}
	// A result without tools lists nothing: complete only with a list.
	if t == nil {
		return shown, next, false
	}
	if !t.add(gen, entries, r.Tools != nil && next == "") {
		return shown, next, true // the server's tools changed since it was asked
	}
	g.lastListed.Store(t)
	g.mu.Lock()
	first := !g.known
	g.known = true
	g.mu.Unlock()
	if first {
		g.checkHints(names)
	}
	return shown, next, false
}

// compiled is the check of the tool name's input schema: the one t, or
// the table last listed, holds for the same schema (compiled once, until
// the schema changes), else a new one.
func (g *Guard) compiled(t *toolTable, name string, schema []byte) *declared {
	for _, from := range []*toolTable{t, g.lastListed.Load()} {
		if from == nil {
			continue
		}
		if old := from.get(name); old != nil && old.declared != nil && bytes.Equal(old.declared.schema, schema) {
			return old.declared
		}
	}
	return &declared{schema: schema}
}

// declaresOutput reports whether the tool c calls was listed with an
// output schema.
func (g *Guard) declaresOutput(c *call) bool {
	t := g.toolOf(c)
	return t != nil && t.output
}

// serverMessage is what the client is sent for msg, a request or
// notification of the server's (of method) whose listed tools are t: the
// tools are forgotten when the server says they changed, so that the next
// call is checked against them as listed again, and a task's status text
// is made safe (tasks.go).
func (g *Guard) serverMessage(t *toolTable, method string, msg []byte) []byte {
	if method == "notifications/tools/list_changed" && t != nil {
		t.forget()
	}
	return g.relayedTask(method, msg)
}

// isUnknownTool reports whether a JSON-RPC error answers a call of a tool
// the server does not have: that error stays a protocol error, as the MCP
// specification asks.
func (g *Guard) isUnknownTool(c *call, code int, msg string) bool {
	if c.taskResult {
		return false // the tool was called: this is the task's failure
	}
	if code != -32602 && code != -32601 {
		return false
	}
	if g.tableOf(c).learned() && !g.listed(c) {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "unknown tool") || strings.Contains(m, "tool not found") ||
		(strings.Contains(m, "not found") && strings.Contains(m, strings.ToLower(c.tool)))
}

// answer rewrites the upstream's response to a tools/call, msg, whose
// head is m. It returns msg itself when nothing changes.
func (g *Guard) answer(ctx context.Context, c *call, msg []byte, m *message) (out []byte) {
	if len(m.Error) == 0 && !c.taskResult && !g.o.successes && plainSuccess(m.Result) {
		g.settleAnswer(ctx, c, msg, true)
		return msg // the success path, what rewriteTask finds in more steps
	}
	defer func() { g.settleAnswer(ctx, c, out, false) }()
	if p := safe.Call(func() { out = g.rewriteTask(ctx, c, msg, m) }); p != nil {
		env := g.r.Recovered(ctx, c.tool, p, envelope.RecoverOptions{Stack: true})
		return g.render(ctx, c, env)
	}
	if !same(out, msg) && len(out) > g.o.maxMessage {
		// The bound holds on what the client receives: a rewrite can grow
		// a message (an escape is up to six bytes for one).
		return g.tooLarge(ctx, c)
	}
	return out
}

func (g *Guard) rewrite(ctx context.Context, c *call, msg []byte, m *message) []byte {
	if len(m.Error) > 0 {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(m.Error, &e)
		o := pipeline.Decide(pipeline.Answer{Err: true, Protocol: g.isUnknownTool(c, e.Code, e.Message)})
		if p := o.Policy(); !p.Envelope {
			if p.Redact == pipeline.RedactMessage {
				if red := g.redactedRPCError(c.id, m.Error); red != nil {
					return red
				}
			}
			return msg
		}
		if upstreamPanic(e.Code, e.Message) {
			return g.panicked(ctx, c, e.Message) // pipeline.Panic
		}
		var env *envelope.Envelope
		if code, ok := g.o.mapped(c.tool, e.Message); ok {
			env = g.r.Error(ctx, c.core(), envelope.New(code, e.Message))
		} else if e.Code == -32602 {
			env = g.r.Error(ctx, c.core(), envelope.New(envelope.ValidationError, e.Message))
		} else {
			env = g.r.Text(ctx, c.core(), e.Message)
		}
		g.hint(ctx, c, env)
		return g.render(ctx, c, env)
	}
	if sealed, err := g.sealState(c, m.Result); err != nil {
		return g.render(ctx, c, g.r.Error(ctx, c.core(), err))
	} else if !same(sealed, m.Result) {
		sm := *m // the caller's message is left as it read it
		sm.Result = sealed
		msg, m = g.respond(c.id, sealed), &sm
	}
	if !g.o.successes && !mayBeError(m.Result) && !mayHaveFailureMeta(m.Result) {
		return msg // the success path: no decoding of the result
	}
	var res result
	if json.Unmarshal(m.Result, &res) != nil {
		return g.render(ctx, c, g.r.Error(ctx, c.core(),
			envelope.New(envelope.InternalError, "the upstream's tools/call result is not a valid result")))
	}
	p := pipeline.Decide(res.answer()).Policy()
	if p.Envelope {
		text := res.text()
		var env *envelope.Envelope
		if code, ok := g.o.mapped(c.tool, text); ok {
			env = g.r.Error(ctx, c.core(), envelope.New(code, text))
		} else {
			env = g.r.Text(ctx, c.core(), text)
		}
		g.hint(ctx, c, env)
		return g.respond(c.id, g.errorResult(c, env, &res))
	}
	out := m.Result
	if p.DropForgedFailure && res.Meta[envelope.ToolFailureMetaKey] != nil {
		out = withoutFailureMeta(out)
	}
	if g.o.successes {
		out = redactResult(g.o.successRedactor.ForCall(c.args), out, g.state != nil)
	}
	if bytes.Equal(out, m.Result) {
		return msg
	}
	return g.respond(c.id, out)
}

// withoutFailureMeta returns a result without the toolFailure member of
// its _meta: only the proxy's envelope writes one (core/pipeline's
// policy for every outcome that is not rendered as an envelope).
func withoutFailureMeta(result []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(top["_meta"], &meta) != nil {
		return result
	}
	delete(meta, envelope.ToolFailureMetaKey)
	top["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(top)
	if err != nil {
		return result
	}
	return out
}

// redactResult redacts a tool result but for its binary content, which
// redaction would corrupt (a base64 run looks like a token), and, when
// sealed, its requestState, which it would break.
func redactResult(red *redact.Redactor, result []byte, sealed bool) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result
	}
	var content []json.RawMessage
	_ = json.Unmarshal(top["content"], &content)
	changed := false
	for k, v := range top {
		if k == "content" || (sealed && wire.FoldsAs([]byte(k), []byte("requestState"))) { // sealed under every spelling (seal.go)
			continue
		}
		if out, ok := red.JSON(string(v)); ok && out != string(v) {
			top[k], changed = json.RawMessage(out), true
		}
	}
	for i, item := range content {
		if out := redactItem(red, item); !bytes.Equal(out, item) {
			content[i], changed = out, true
		}
	}
	if !changed {
		return result
	}
	if content != nil {
		top["content"], _ = json.Marshal(content)
	}
	out, err := json.Marshal(top)
	if err != nil {
		return result
	}
	return out
}

// redactItem redacts one content item, read into core/redact's view of
// an item, with the walk the fronts use: its binary members (an image's
// or audio's data, a resource's blob) are not in the view, and reach the
// client as the upstream sent them.
func redactItem(red *redact.Redactor, item []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		out, _ := red.JSON(string(item))
		return []byte(out)
	}
	var kind string
	_ = json.Unmarshal(m["type"], &kind)
	var res map[string]json.RawMessage
	it := redact.Item{Kind: itemKinds[kind]}
	switch it.Kind {
	case redact.OtherItem:
		it.JSON = string(item)
	case redact.ResourceItem:
		if json.Unmarshal(m["resource"], &res) != nil || res == nil {
			it = redact.Item{JSON: string(item)} // not a resource the walk can read: as JSON
			break
		}
		readMembers(res, []string{"uri", "text"}, &it.URI, &it.Text)
		it.ResourceMeta = rawOrNil(res["_meta"])
	default:
		readMembers(m, []string{"text", "uri", "name", "title", "description"}, &it.Text, &it.URI, &it.Name, &it.Title, &it.Description)
	}
	if it.Kind != redact.OtherItem {
		it.Meta = rawOrNil(m["_meta"])
	}
	out, changed := red.Item(it)
	switch {
	case !changed:
		return item
	case out.Kind == redact.OtherItem:
		return []byte(out.JSON)
	case out.Kind == redact.ResourceItem:
		writeMembers(res, map[string]string{"uri": out.URI, "text": out.Text})
		setMeta(res, out.ResourceMeta)
		m["resource"], _ = json.Marshal(res)
	default:
		writeMembers(m, map[string]string{"text": out.Text, "uri": out.URI, "name": out.Name, "title": out.Title,
			"description": out.Description})
	}
	setMeta(m, out.Meta)
	b, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return b
}

// itemKinds are the content types of the MCP schema, as core/redact's
// walk reads them; any other is redacted as JSON.
var itemKinds = map[string]redact.Kind{"text": redact.TextItem, "image": redact.BinaryItem, "audio": redact.BinaryItem,
	"resource_link": redact.LinkItem, "resource": redact.ResourceItem}

// readMembers reads the string members names of m into dst, in order.
func readMembers(m map[string]json.RawMessage, names []string, dst ...*string) {
	for i, p := range dst {
		_ = json.Unmarshal(m[names[i]], p)
	}
}

// writeMembers writes back the string members of m that the walk changed
// (only those m has).
func writeMembers(m map[string]json.RawMessage, values map[string]string) {
	for name, v := range values {
		var was string
		if raw, ok := m[name]; ok && json.Unmarshal(raw, &was) == nil && was != v {
			m[name], _ = json.Marshal(v)
		}
	}
}

// setMeta writes a redacted _meta back into m: dropped when the walk
// masked it whole (it is no object any more).
func setMeta(m map[string]json.RawMessage, meta any) {
	switch v := meta.(type) {
	case json.RawMessage:
		m["_meta"] = v
	case nil:
	default:
		delete(m, "_meta")
	}
}

// rawOrNil is raw, or nil (not a nil json.RawMessage) when there is none.
func rawOrNil(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return raw
}

// mayBeError reports whether a result may have isError true: false only
// when no member's name can be isError, as encoding/json matches names
// (in any case, or written with escapes), so that a success is passed on
// without decoding it.
func mayBeError(result []byte) bool {
	return bytes.IndexByte(result, '\\') >= 0 || wire.ContainsFold(result, foldIsError)
}

// The names in a tools/call result the proxy acts on, as core/wire's
// ContainsFold and HasPrefixFold find them: mayBeError, mayHaveFailureMeta,
// the sealing's check and mayBeHandle each look for one, plainSuccess for
// all four.
const (
	foldIsError      = "iserror"
	foldToolFailure  = "toolfailure"
	foldRequestState = "requeststate"
	foldTaskID       = "taskid"
)

// plainSuccess reports whether a tools/call result, of a call that is not
// a tasks/result, is passed on as it is, without decoding it: no member's
// name, as encoding/json matches names, can be the toolFailure _meta, a
// requestState to seal or a task handle's taskId, and none can be isError
// but the result's own "isError": false (which the Python SDK's servers
// send with every success). It is mayBeError, mayHaveFailureMeta, the
// sealing's check and mayBeHandle in one pass over the result, which every
// successful call takes.
func plainSuccess(result []byte) bool {
	if bytes.IndexByte(result, '\\') >= 0 {
		return false
	}
	isError := 0
	for i, c := range result {
		switch c | 0x20 { // no rune beyond ASCII folds to i, t or r
		case 'i':
			if wire.HasPrefixFold(result[i:], foldIsError) {
				isError++
			}
		case 't':
			if wire.HasPrefixFold(result[i:], foldToolFailure) || wire.HasPrefixFold(result[i:], foldTaskID) {
				return false
			}
		case 'r':
			if wire.HasPrefixFold(result[i:], foldRequestState) {
				return false
			}
		}
	}
	return isError == 0 || (isError == 1 && falseMember(result, "isError"))
}

// mayHaveFailureMeta reports whether a result may hold a toolFailure
// _meta, as mayBeError does for isError.
func mayHaveFailureMeta(result []byte) bool {
	return bytes.IndexByte(result, '\\') >= 0 || wire.ContainsFold(result, foldToolFailure)
}

// result is a tools/call result, as far as the proxy reads it.
type result struct {
	IsError       bool              `json:"isError"`
	ResultType    string            `json:"resultType"`
	InputRequests json.RawMessage   `json:"inputRequests"`
	Content       []json.RawMessage `json:"content"`
	Meta          map[string]any    `json:"_meta"`
}

// answer is the result as core/pipeline reads an answer.
func (r *result) answer() pipeline.Answer {
	return pipeline.Answer{IsError: r.IsError, ResultType: r.ResultType,
		InputRequests: len(r.InputRequests) > 0 && string(r.InputRequests) != "null"}
}

// text joins the text items of the result's content.
func (r *result) text() string { return pipeline.JoinText(r.Content, itemText) }

// itemText returns the text of a text content item.
func itemText(raw json.RawMessage) (string, bool) {
	var item struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &item) != nil || item.Type != "text" {
		return "", false
	}
	return item.Text, true
}

// errorResult is the result an envelope is sent as, in core/pipeline's
// shape: the envelope's JSON as the first text item, then the upstream's
// other items, redacted; the envelope as structured content unless the
// tool declares an output schema; the upstream's _meta, redacted, with a
// toolFailure only as the envelope says (kept where the upstream sent
// one: relays keep it).
func (g *Guard) errorResult(c *call, env *envelope.Envelope, from *result) []byte {
	out := struct {
		Content           []json.RawMessage  `json:"content"`
		IsError           bool               `json:"isError"`
		StructuredContent *envelope.Envelope `json:"structuredContent,omitempty"`
		Meta              map[string]any     `json:"_meta,omitempty"`
	}{IsError: true}
	red := g.r.Redactor().ForCall(c.args)
	in := pipeline.ErrorInput{Envelope: env, Renderer: g.r, Relay: g.metaR, DeclaresOutput: g.declaresOutput(c)}
	if from != nil && len(from.Meta) > 0 {
		v, _ := red.Value(from.Meta)
		in.Meta, _ = v.(map[string]any) // redacted values, the same keys
	}
	shape := pipeline.BuildError(in)
	text, _ := json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", shape.Text})
	out.Content = append(out.Content, text)
	if from != nil {
		for _, raw := range from.Content {
			var item struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(raw, &item) == nil && item.Type != "text" {
				out.Content = append(out.Content, redactItem(red, raw))
			}
		}
	}
	out.StructuredContent, out.Meta = shape.Structured, shape.Meta
	b, err := json.Marshal(out)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"content": out.Content[:1], "isError": true})
	}
	return b
}

// render is the whole response that answers c with env.
func (g *Guard) render(_ context.Context, c *call, env *envelope.Envelope) []byte {
	return g.respond(c.id, g.errorResult(c, env, nil))
}

// respond is a JSON-RPC response carrying result.
func (g *Guard) respond(id, result []byte) []byte {
	b := make([]byte, 0, len(id)+len(result)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// crashed answers c after the upstream went away mid-call: an internal
// error under an incident that the log records with why.
func (g *Guard) crashed(ctx context.Context, c *call, why string) []byte {
	id := incident.New()
	safe.Log(ctx, g.r.Logger(), slog.LevelError, "mcpguard-proxy: the upstream went away during a tool call",
		slog.String(logkey.Tool, c.tool), slog.String(logkey.IncidentID, id), slog.String(logkey.Error, why))
	return g.render(ctx, c, g.r.Internal(c.tool, id))
}

// mcpgoPanic starts the JSON-RPC error message of mcp-go's WithRecovery
// for a panic in a tool handler (server.go: "panic recovered in %s tool
// handler: %v").
const mcpgoPanic = "panic recovered in "

// upstreamPanic reports whether an upstream's JSON-RPC error answers a
// panic it recovered.
func upstreamPanic(code int, msg string) bool {
	return code == -32603 && strings.HasPrefix(msg, mcpgoPanic) && strings.Contains(msg, " tool handler: ")
}

// panicked answers c after the upstream recovered a panic in its handler,
// as the fronts answer one: an internal error under an incident that the
// log records with the upstream's text, which the client never reads.
func (g *Guard) panicked(ctx context.Context, c *call, msg string) []byte {
	id := incident.New()
	safe.Log(ctx, g.r.Logger(), slog.LevelError, "mcpguard-proxy: the upstream recovered a panic in a tool call",
		slog.String(logkey.Tool, c.tool), slog.String(logkey.IncidentID, id), slog.String(logkey.Error, msg))
	return g.render(ctx, c, g.r.Internal(c.tool, id))
}

// timedOut answers c after the timeout passed without an answer.
func (g *Guard) timedOut(ctx context.Context, c *call) []byte {
	return g.render(ctx, c, g.refusal(ctx, c, pipeline.Limits, limit.TimedOut(c.tool, g.o.timeout)))
}

// tooLarge answers c when the upstream's answer was over the bound.
func (g *Guard) tooLarge(ctx context.Context, c *call) []byte {
	err := envelope.New(envelope.ExecutionFailed, "the tool's result is larger than the proxy's limit of "+
		sizeText(g.o.maxMessage)+"; ask for less: a smaller page, fewer fields or a narrower query")
	return g.render(ctx, c, g.r.Error(ctx, c.core(), err))
}

// requestTooLarge answers a tools/call whose request was over the bound.
func (g *Guard) requestTooLarge(ctx context.Context, c *call) []byte {
	err := envelope.New(envelope.ValidationError, "the call's arguments are larger than the proxy's limit of "+
		sizeText(g.o.maxMessage)+"; send less per call")
	return g.render(ctx, c, g.r.Error(ctx, c.core(), err))
}

// unavailable answers c when no upstream can take it (restarting, gone).
func (g *Guard) unavailable(ctx context.Context, c *call) []byte {
	err := envelope.SetRetryable(envelope.New(envelope.ExecutionFailed,
		"the server is restarting and cannot take calls for the moment"), true)
	return g.render(ctx, c, g.r.Error(ctx, c.core(), err))
}

// rpcError is a JSON-RPC error response to id.
func rpcError(id []byte, code int, msg string) []byte {
	m, _ := json.Marshal(msg)
	e := make([]byte, 0, len(m)+32)
	e = append(e, `{"code":`...)
	e = strconv.AppendInt(e, int64(code), 10)
	e = append(e, `,"message":`...)
	e = append(e, m...)
	return errorResponse(id, append(e, '}'))
}

// errorResponse is the JSON-RPC response with the id id (null when
// empty) and the error member e, JSON.
func errorResponse(id, e []byte) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	b := make([]byte, 0, len(id)+len(e)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, e...)
	return append(b, '}')
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// redactedRPCError is the answer, under the client's id, to a request
// that the upstream answered with the JSON-RPC error member e (a tool call
// only when the error stays one, an unknown tool's): what the error says reaches the client (its code, and
// its message and data redacted), its secrets do not. nil when redaction
// changes nothing: the message then passes as it came.
func (g *Guard) redactedRPCError(clientID, e []byte) []byte {
	red := g.redactedJSON(e, nil)
	if bytes.Equal(red, e) {
		return nil
	}
	if red != nil {
		if out := errorResponse(clientID, red); len(out) <= g.o.maxMessage {
			return out
		}
	}
	return rpcError(clientID, -32603, "the upstream answered with an error")
}

// redactedJSON is b, JSON, redacted, or otherwise when redaction fails or
// grows it past the bound.
func (g *Guard) redactedJSON(b, otherwise []byte) []byte {
	if red, ok := g.o.redactor.JSON(string(b)); ok && len(red) <= g.o.maxMessage {
		return []byte(red)
	}
	return otherwise
}
