package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// This file holds a call that [WithRate] or [WithConcurrency] refused,
// of a client that negotiated multi round-trip requests (MCP
// 2026-07-28), until the limit admits it, as both fronts do, with
// core/limit's one stage ([limit.Absorb]): the model sees the result,
// not a refusal it would spend a turn on. Over stdio a held call waits
// off the reading loop, so that the client's other messages (and its
// other calls, in the order the limit reserved their tokens) go on.
//
// A call that found no room to be held is shed, as the go-sdk front
// sheds it, when the proxy seals requestState (a shed state must not be
// the client's to write): answered with input_required, no input
// requests and a shed state (core/seal's SealShed), which go-sdk's and
// mcp-go's 2026-07-28 clients answer by sending the same call again. The
// re-send's state opens in openState (seal.go), and the limit decides it
// again: held, shed again, or refused after limit.ShedRounds.

// holdOptions is what [WithHoldCap] sets.
type holdOptions struct {
	cap time.Duration
	set bool
}

// WithHoldCap sets how long the proxy may hold a tool call of a client
// that negotiated multi round-trip requests (MCP 2026-07-28), which
// [WithRate] or [WithConcurrency] refused, until the limit admits it,
// rather than answer the refusal at once; never past the call's
// [WithTimeout]. The default is [limit.DefaultHoldCap]; zero turns
// holding off. At most [limit.HoldPerCaller] calls of one client and
// [limit.HoldMax] in all are held at once; the others are shed (a
// load-shedding input_required the client's SDK re-sends, at most
// [limit.ShedRounds] times) while requestState is sealed, else refused;
// clients of older revisions get the refusal at once, as before. It
// panics on a negative duration.
func WithHoldCap(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("proxy: WithHoldCap(%s): negative duration", d))
	}
	return func(o *options) { o.hold = holdOptions{cap: d, set: true} }
}

// holds is the Guard's holds: nil without a limit, or with holding off.
func (o *options) holds() *limit.Holds {
	if o.rate == nil && o.slots == nil {
		return nil
	}
	c := limit.DefaultHoldCap
	if o.hold.set {
		c = o.hold.cap
	}
	return limit.NewHolds(c, limit.HoldPerCaller, limit.HoldMax)
}

// pass passes c through the gates of its admission (core/chain's Admit)
// from the one at from on: out answers it when a gate refused it; held,
// when a limit refused it and may hold it, holds it and returns what
// admit does.
func (g *Guard) pass(ctx context.Context, c *call, from int) (out []byte, held func(context.Context) []byte) {
	_, i, err := g.repeats.Admit(ctx, c, from)
	if err == nil {
		return nil, nil
	}
	s := g.repeats.Gate(i)
	if s.Gate.(gate).hold != nil && g.holdable(c, err) {
		return nil, g.holder(c, i, err)
	}
	return g.refuse(ctx, c, s.At, err), nil
}

// holder is what holds c, refused by the gate i with refusal: made apart
// from pass, whose gate index would otherwise go to the heap on every
// call.
func (g *Guard) holder(c *call, i int, refusal error) func(context.Context) []byte {
	return func(ctx context.Context) []byte { return g.held(ctx, c, i, refusal) }
}

// held holds c, which the gate i refused with refusal, within the call's
// timeout, then passes it through the gates after i.
func (g *Guard) held(ctx context.Context, c *call, i int, refusal error) []byte {
	hctx, cancel := context.WithDeadline(ctx, c.start.Add(g.o.timeout))
	if g.calls != nil {
		hctx, c.note = calllog.Noting(hctx)
	}
	s := g.repeats.Gate(i)
	adm, err := s.Gate.(gate).hold(hctx, c, refusal)
	cancel()
	if adm == limit.Shed {
		return g.shed(ctx, c)
	}
	if err != nil {
		return g.refuse(ctx, c, s.At, err)
	}
	out, more := g.pass(ctx, c, i+1)
	if more != nil {
		return more(ctx)
	}
	return out
}

// refuse answers c, refused by the stage at with err, and releases what
// it holds.
func (g *Guard) refuse(ctx context.Context, c *call, at pipeline.Stage, err error) []byte {
	g.done(c)
	env := g.refusal(ctx, c, at, err)
	return g.refused(ctx, c, env)
}

// holdable reports whether c, refused with err, may be held: holding is
// on, the wait is within its cap, and c's client acts on multi
// round-trip results ([limit.Absorb] decides the rest).
func (g *Guard) holdable(c *call, err error) bool {
	wait := envelope.RetryAfterOf(err)
	return g.holds != nil && wait > 0 && wait <= g.holds.Cap() && c.modern()
}

// holdRate holds c until its token of the rate's bucket, reserved in
// the order calls came, is there.
func (g *Guard) holdRate(ctx context.Context, c *call, refusal error) (limit.Admission, error) {
	bucket := "" // as allowRate takes it
	if g.o.ratePerTool {
		bucket = c.tool
	}
	_, adm, err := limit.Absorb(ctx, g.holds, g.holdCall(c), refusal, func(_ context.Context, within time.Duration) (struct{}, time.Duration, error) {
		d, err := g.o.rate.Reserve(bucket, c.key, time.Now(), within)
		return struct{}{}, d, err
	})
	return adm, err
}

// holdSlot holds c until a concurrency slot frees, which it then holds
// as acquireSlot's.
func (g *Guard) holdSlot(ctx context.Context, c *call, refusal error) (limit.Admission, error) {
	s, adm, err := limit.Absorb(ctx, g.holds, g.holdCall(c), refusal, func(ctx context.Context, within time.Duration) (limit.Slot, time.Duration, error) {
		s, err := g.o.slots.AcquireWithin(ctx, c.tool, within)
		return s, 0, err
	})
	if err == nil {
		c.slot = &s
	}
	return adm, err
}

// holdCall is c as core/limit's holds read it: it may be shed when the
// proxy seals requestState and c carries no inputResponses.
func (g *Guard) holdCall(c *call) limit.HoldCall {
	return limit.HoldCall{Caller: c.key, Modern: c.modern(), CanShed: g.state != nil && !c.answers, Rounds: c.rounds}
}

// shed answers c, which found no room to be held, with a load-shedding
// result: its state is sealed as a shed state, its round the one after
// c's, carrying the state c echoed, opened ("" for none). The answer goes
// through the stages that wrap a call's answer (end), as the fronts'
// does: the log records it, and the repeated-failure guard, for which an
// input_required round is no outcome yet, neither counts nor releases.
func (g *Guard) shed(ctx context.Context, c *call) []byte {
	g.done(c)
	inner := ""
	if c.opened {
		inner = c.state
	}
	sealed, err := g.state.SealShed(g.state.Binding(ctx, c.tool, c.args), c.rounds+1, inner)
	if err != nil {
		return g.final(ctx, c, g.r.Error(ctx, c.core(), err))
	}
	state, _ := json.Marshal(sealed)
	result := make([]byte, 0, len(shedResult)+len(state)+1)
	result = append(append(append(result, shedResult...), state...), '}')
	return g.end(ctx, c, reply{c: c, msg: respond(c.id, result), result: result, plain: true,
		ans: pipeline.Answer{ResultType: pipeline.ResultTypeInputRequired, InputRequests: true}})
}

// shedResult is a load-shedding result, up to its requestState's value.
const shedResult = `{"resultType":"input_required","inputRequests":{},"requestState":`

// era is what a call's params say of its client's protocol.
type era uint8

const (
	eraUnread era = iota
	eraLegacy
	eraModern
)

// metaProtocolVersion is the _meta key of the protocol version every
// request of a 2026-07-28 client carries (there is no initialize in
// that revision: both Go SDKs' clients send server/discover, then the
// version with each request), which the servers behind the proxy read
// as it does.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// firstMultiRoundTrip is the first protocol version whose clients act
// on multi round-trip results (mcp-go's IsModernProtocol, go-sdk's
// clientSupportsMultiRoundTrip).
const firstMultiRoundTrip = "2026-07-28"

// modern reports whether c's client negotiated multi round-trip
// requests, as its params' _meta says: read once, while c is admitted.
func (c *call) modern() bool {
	if c.era == eraUnread {
		c.era = eraLegacy
		if protocolOf(c.params) >= firstMultiRoundTrip {
			c.era = eraModern
		}
	}
	return c.era == eraModern
}

// protocolOf is the protocol version params' _meta names, "" if none.
func protocolOf(params []byte) string {
	var version string
	_ = rpc.Walk(params, false, func(name []byte, v rpc.Span, _ int) error {
		if string(name) == "_meta" && len(v) > 0 && v[0] == '{' {
			_ = rpc.Walk(v, false, func(name []byte, v rpc.Span, _ int) error {
				if string(name) == metaProtocolVersion {
					version, _ = rpc.Unquote(v)
				}
				return nil
			})
		}
		return nil
	})
	return version
}

// holdToChild sends the call of r, whose request is m and which held
// holds, to the child once held has admitted it, off the reading loop;
// r is in flight meanwhile (a cancellation finds it, its timeout runs).
// A call refused after all is answered; one the client no longer waits
// for is let go.
func (s *Stdio) holdToChild(ctx context.Context, r *request, m *rpc.Message, held func(context.Context) []byte) {
	kept := &rpc.Message{Params: bytes.Clone(m.Params), Quick: m.Quick, Call: rpc.QuickCall{Plain: m.Call.Plain}} // m's bytes are the reader's
	go func() {
		out := held(ctx)
		s.mu.Lock()
		gone := r.gone
		s.mu.Unlock()
		if out == nil && !gone && s.callToChild(ctx, r.up, r.call, kept) {
			return
		}
		t := s.take(r.n)
		if t == nil {
			return // answered already: its timeout passed
		}
		s.finish(t)
		switch {
		case gone:
		case out != nil:
			s.reply(t, out, nil)
		default:
			s.unavailable(ctx, t.clientID, t)
		}
	}()
}
