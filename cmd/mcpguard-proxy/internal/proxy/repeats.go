package proxy

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/pipeline"
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

// admitRepeat asks the guard about c: nil to go on, or the answer to send
// instead of sending c upstream.
func (g *Guard) admitRepeat(ctx context.Context, c *call) []byte {
	t, err := g.repeats.Admit(ctx, c)
	if err != nil {
		c.settled.Store(true)
		return g.render(ctx, c, g.refusal(ctx, c, pipeline.Repeats, err))
	}
	c.ticket = t
	return nil
}

// settleRefused settles c, refused by a stage of the proxy with env.
func (g *Guard) settleRefused(ctx context.Context, c *call, env *envelope.Envelope) {
	if c.settled.CompareAndSwap(false, true) {
		g.repeats.Settle(ctx, c.ticket, c, env)
	}
}

// settleAnswer settles c with out, the answer its client receives:
// success is true when out is the upstream's success as it came (the
// proxy's success path, which reads nothing more).
func (g *Guard) settleAnswer(ctx context.Context, c *call, out []byte, success bool) {
	if c.taskResult || !c.settled.CompareAndSwap(false, true) {
		return
	}
	if success {
		g.repeats.Settle(ctx, c.ticket, c, nil)
		return
	}
	var resp struct {
		Result *result `json:"result"`
	}
	if json.Unmarshal(out, &resp) != nil || resp.Result == nil {
		return // a JSON-RPC error: not an answer the guard reads
	}
	// core/pipeline decides what the answer is: not a failure releases;
	// an error result is counted by the envelope in its first item.
	switch o := pipeline.Decide(resp.Result.answer()); {
	case !o.Policy().Failure:
		g.repeats.Settle(ctx, c.ticket, c, nil)
	case o == pipeline.ErrorResult && len(resp.Result.Content) > 0:
		text, _ := itemText(resp.Result.Content[0])
		if env, ok := envelope.Parse(text); ok {
			g.repeats.Settle(ctx, c.ticket, c, env)
		}
	}
}
