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

// guardAnswer is a call's answer as the guard reads it: what its client
// receives (out), the upstream's success as it came (success: the
// proxy's success path, which reads nothing more), or a refusal of a
// stage of the proxy (env).
type guardAnswer struct {
	out     []byte
	success bool
	env     *envelope.Envelope
}

// guardAdapter reads the proxy's calls and answers for core/chain's
// guard.
type guardAdapter struct{ g *Guard }

func (guardAdapter) Call(_ context.Context, c *call) envelope.Call { return c.core() }

// Known: a call of a tool the server does not have is guardAnswer before
// the guard (unknownTool).
func (guardAdapter) Known(context.Context, *call) bool { return true }

// Read reads an answer; a JSON-RPC error is no answer the guard reads.
func (guardAdapter) Read(_ context.Context, a guardAnswer) pipeline.Answer {
	switch {
	case a.success:
		return pipeline.Answer{}
	case a.env != nil:
		return pipeline.Answer{IsError: true}
	}
	if r := resultOf(a.out); r != nil {
		return r.answer()
	}
	return pipeline.Answer{Err: true, Protocol: true}
}

// Envelope is a refusal's, or the one in an error result's first item.
func (guardAdapter) Envelope(a guardAnswer) (*envelope.Envelope, bool) {
	if a.env != nil {
		return a.env, true
	}
	if r := resultOf(a.out); r != nil && len(r.Content) > 0 {
		text, _ := itemText(r.Content[0])
		return envelope.Parse(text)
	}
	return nil, false
}

func (a guardAdapter) Refuse(ctx context.Context, c *call, err error) guardAnswer {
	return guardAnswer{out: a.g.render(ctx, c, a.g.refusal(ctx, c, pipeline.Repeats, err))}
}

// resultOf reads the result of a response, nil for a JSON-RPC error.
func resultOf(out []byte) *result {
	var resp struct {
		Result *result `json:"result"`
	}
	if json.Unmarshal(out, &resp) != nil {
		return nil
	}
	return resp.Result
}

// admitRepeat asks the guard about c: nil to go on, or the answer to send
// instead of sending c upstream.
func (g *Guard) admitRepeat(ctx context.Context, c *call) []byte {
	run, refused, held := g.repeats.Begin(ctx, c)
	if held {
		c.settled.Store(true)
		return refused.out
	}
	c.run = run
	return nil
}

// settleRefused settles c, refused by a stage of the proxy with env.
func (g *Guard) settleRefused(ctx context.Context, c *call, env *envelope.Envelope) {
	if c.settled.CompareAndSwap(false, true) {
		c.run.End(ctx, guardAnswer{env: env})
	}
}

// settleAnswer settles c with out, the answer its client receives:
// success is true when out is the upstream's success as it came (the
// proxy's success path, which reads nothing more).
func (g *Guard) settleAnswer(ctx context.Context, c *call, out []byte, success bool) {
	if c.taskResult || !c.settled.CompareAndSwap(false, true) {
		return
	}
	c.run.End(ctx, guardAnswer{out: out, success: success})
}
