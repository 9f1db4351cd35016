package proxy

import (
	"context"
	"net/http"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// This file runs the repeated-failure guard, core/limit's stage every
// consumer runs, on the proxy's calls: a call's caller is its MCP session
// over HTTP, else its credentials (httpCaller), and the one client of a
// stdio proxy. A call is settled once, with what its
// client receives: a refusal of the proxy's own stages (the declared
// check), or the upstream's answer as the proxy rewrote it.

// stdioCaller is the caller of every call of a stdio proxy: its one
// client.
var stdioCaller = limit.Caller{Session: "stdio"}

// httpCaller is who an HTTP request is from: its MCP session, with its
// Authorization header as its credentials (core/limit names a caller
// without a session by its credentials).
func httpCaller(r *http.Request) limit.Caller {
	return limit.Caller{Session: r.Header.Get("Mcp-Session-Id"), Credential: r.Header.Get("Authorization")}
}

// readRepeat reads c as the guard does.
func readRepeat(_ context.Context, c *call) limit.RepeatCall {
	return limit.RepeatCall{Caller: c.caller, Tool: c.tool, Args: c.args, Continued: c.hasState}
}

// newRepeatStage is the stage of o's guard, reading calls with
// readRepeat.
func newRepeatStage(o *options) limit.RepeatStage[*call] {
	return limit.NewRepeatStage(o.repeats, readRepeat)
}

// admitRepeat asks the guard about c: nil to go on, or the answer to send
// instead of sending c upstream.
func (g *Guard) admitRepeat(ctx context.Context, c *call) []byte {
	run, refused, held := g.repeats.Begin(ctx, c)
	if held {
		c.settled.Store(true)
		return refused.msg
	}
	c.run, c.admitted = run, true
	return nil
}

// refused is the answer to c, refused by a stage of the proxy with env,
// through the stages that wrap a call's answer: the repeated-failure
// guard, outside every other stage of admission, counts it.
func (g *Guard) refused(ctx context.Context, c *call, env *envelope.Envelope) []byte {
	return g.end(ctx, c, g.ownReply(ctx, c, env))
}
