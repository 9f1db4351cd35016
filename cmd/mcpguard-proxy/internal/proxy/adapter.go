package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
)

// This file is the proxy's adapter of core/chain, which runs the stages
// that wrap a call's answer (recover, repeats, redact, render) in
// core/pipeline's order, as it runs them on both SDK fronts: each method
// only reads or writes the wire's JSON. The proxy admits a call when it
// sends it upstream (chain.Begin, in admitRepeat) and finishes it when the
// upstream answers (chain.Run.End, in end).

// reply is a tools/call's answer, as the proxy reads it once (answer.go:
// read) and core/chain's stages pass it on: the upstream's response, or
// an answer the proxy wrote.
type reply struct {
	c *call
	// msg is the response the client receives as the reply stands; from
	// is the upstream's, as it came (nil for the proxy's own answers).
	msg, from []byte
	// result is msg's result member (nil for a JSON-RPC error), and res
	// that result decoded (nil when it was not: a plain success, a task
	// handle, or a JSON-RPC error).
	result []byte
	res    *result
	// rpcErr is msg's JSON-RPC error member, and code and message what it
	// says.
	rpcErr  []byte
	code    int
	message string
	// ans is what core/pipeline reads of the reply.
	ans pipeline.Answer
	// plain: result is a success passed as it came, which the scan that
	// found it plain (plainSuccess, or mayBeError and mayHaveFailureMeta)
	// read whole: no member can be isError or a toolFailure.
	plain bool
	// own: msg is an error result the proxy rendered, with env, final.
	own bool
	env *envelope.Envelope
	// err is a gate's refusal, as core/chain's Serve would answer it
	// (Failed); the proxy runs its gates with Admit and refuses itself.
	err error
}

// ownReply is the reply of c that carries env, rendered.
func (g *Guard) ownReply(ctx context.Context, c *call, env *envelope.Envelope) reply {
	return reply{c: c, msg: g.render(ctx, c, env), own: true, env: env, ans: pipeline.Answer{IsError: true}}
}

// adapter translates the proxy's calls and replies for core/chain.
type adapter struct{ g *Guard }

// answers returns the chain of the stages that wrap a call's answer:
// with the repeated-failure guard and the gates of admission when gates
// are given (the chain of a call, admitted by Begin, then Admit), else
// without them (the answer to a tasks/result, or to a call the guard
// counted already).
func (g *Guard) answers(gates []chain.Admission[*call]) *chain.Chain[*call, reply] {
	guarded := gates != nil
	s := chain.Stages[*call]{
		Recover: true,
		Redact:  &chain.Redaction{Failures: g.o.redactor},
		Render:  g.r,
	}
	if g.o.successes {
		s.Redact.Successes = g.o.successRedactor
	}
	if guarded {
		rs := newRepeatStage(g.o)
		s.Repeats = &rs
		s.Log = g.calls != nil // once a call, at its first answer (calllog.go)
	}
	return chain.New[*call, reply](adapter{g}, s, gates...)
}

func (adapter) Call(_ context.Context, c *call) envelope.Call { return c.core() }

// Read: what the proxy read of the reply (read).
func (adapter) Read(_ context.Context, a reply) pipeline.Answer { return a.ans }

// Known: whether the server's complete tools/list names c's tool, or the
// proxy has none yet (a call of a tool the list does not name is the
// upstream's to answer).
func (a adapter) Known(_ context.Context, c *call) bool { return a.g.hasTool(c) }

// Envelope is the proxy's own, or the one in an error result's first
// item.
func (adapter) Envelope(a reply) (*envelope.Envelope, bool) {
	if a.own {
		return a.env, a.env != nil
	}
	if a.res != nil && len(a.res.Content) > 0 {
		text, _ := itemText(a.res.Content[0])
		return envelope.Parse(text)
	}
	return nil, false
}

func (a adapter) Refuse(ctx context.Context, c *call, err error) reply {
	return a.g.ownReply(ctx, c, a.g.refusal(ctx, c, pipeline.Repeats, err))
}

// Err is a gate's refusal; the proxy reads no other Go error (an
// upstream's JSON-RPC error that is not a protocol error is the tool's
// failure, its message the text).
func (adapter) Err(a reply) error {
	if a.err != nil {
		return a.err
	}
	return errors.New(a.message)
}

// Failed is the reply of a call a gate refused with err.
func (adapter) Failed(err error) reply { return reply{err: err, ans: pipeline.Answer{Err: true}} }

// Rendered: the proxy's own answers are final, and so are the upstream
// SDK's answers to a panic and to a result it refused to send, which say
// nothing a client can use: each is an internal_error under an incident,
// as the fronts answer them.
func (a adapter) Rendered(ctx context.Context, c *call, r reply) (reply, bool) {
	switch {
	case r.own:
		return r, true
	case r.rpcErr == nil:
		return r, false
	}
	switch pipeline.ReadSDKError(r.code, r.message, c.tool) {
	case pipeline.SDKPanic:
		return a.g.ownReply(ctx, c, a.g.panicked(ctx, c, r.message)), true // pipeline.Panic
	case pipeline.SDKRefusedResult:
		return a.g.ownReply(ctx, c, a.g.r.Unencodable(ctx, c.tool, errors.New(r.message), nil)), true
	}
	return r, false
}

// Shown is the failure's code where a mapping (--map) gives one, or
// validation_error for an upstream's -32602.
func (a adapter) Shown(r reply) error {
	text := a.Text(r)
	if code, ok := a.g.o.mapped(r.c.tool, text); ok {
		return envelope.New(code, text)
	}
	if r.rpcErr != nil && r.code == -32602 {
		return envelope.New(envelope.ValidationError, text)
	}
	return nil
}

// Text is an error result's text, or a JSON-RPC error's message.
func (adapter) Text(r reply) string {
	if r.rpcErr != nil {
		return r.message
	}
	if r.res == nil {
		return ""
	}
	return r.res.text()
}

// Write is errorResult, with the tool's hints on a relayed failure (not
// on a missing result, which says nothing of the tool's use).
func (a adapter) Write(ctx context.Context, c *call, env *envelope.Envelope, r reply) reply {
	if !r.ans.Nil {
		a.g.hint(ctx, c, env)
	}
	out := reply{c: c, own: true, env: env, ans: pipeline.Answer{IsError: true}}
	out.msg = respond(c.id, a.g.errorResult(c, env, r.res))
	return out
}

// DropForged drops a toolFailure member of the result's _meta.
func (adapter) DropForged(r reply) reply {
	switch {
	case r.plain || r.result == nil:
		return r
	case r.res != nil:
		if r.res.Meta[envelope.ToolFailureMetaKey] == nil {
			return r
		}
	case !mayHaveFailureMeta(r.result): // a task handle, not decoded
		return r
	}
	return r.withResult(withoutFailureMeta(r.result))
}

// Protocol: a JSON-RPC error that stays one (an unknown tool's) is sent
// as it came, but for Redact.
func (adapter) Protocol(_ context.Context, _ *call, r reply) reply { return r }

// Redact redacts a result (but its binary content and a sealed
// requestState: redactResult) or a JSON-RPC error's message and data.
// The proxy's own answers hold only an envelope its renderer redacted.
func (a adapter) Redact(red *redact.Redactor, r reply) reply {
	switch {
	case r.own:
		return r
	case r.rpcErr != nil:
		if out := a.g.redactedRPCError(red, r.c.id, r.rpcErr); out != nil {
			r.msg = out
		}
		return r
	case r.result == nil:
		return r
	}
	return r.withResult(redactResult(red, r.result, a.g.state != nil))
}

// withResult is r with the result out, the message rebuilt when out is
// not r's result.
func (r reply) withResult(out []byte) reply {
	if bytes.Equal(out, r.result) {
		return r
	}
	r.result, r.msg = out, respond(r.c.id, out)
	return r
}

// Recovered logs a panic under a fresh incident and renders its
// envelope.
func (a adapter) Recovered(ctx context.Context, c *call, v any) reply {
	return a.g.ownReply(ctx, c, a.g.r.Recovered(ctx, c.tool, v, envelope.RecoverOptions{Stack: true}))
}

// Fallback answers c when recovering itself panicked.
func (a adapter) Fallback(c *call) reply {
	env := envelope.FallbackInternal()
	out, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(env.Marshal())}}, "isError": true})
	return reply{c: c, msg: respond(c.id, out), own: true, env: env, ans: pipeline.Answer{IsError: true}}
}

// Sendable bounds what the client receives: an answer the proxy rewrote
// can grow past the bound the upstream's was held to (an escape is up to
// six bytes for one). The answer to a tasks/result the proxy rewrote
// names the task it is about first.
func (a adapter) Sendable(ctx context.Context, c *call, r reply) reply {
	if same(r.msg, r.from) {
		return r
	}
	if c.taskResult && c.task != "" {
		r.msg = relateTask(r.msg, c.task)
	}
	if len(r.msg) > a.g.o.maxMessage {
		return a.g.ownReply(ctx, c, a.g.tooLargeEnvelope(ctx, c))
	}
	return r
}

// read reads msg, the upstream's response m to c, once, for every stage:
// the inner stages of the proxy that answer it first (a task handle is
// remembered, a requestState sealed) run here.
func (g *Guard) read(ctx context.Context, c *call, msg []byte, m *rpc.Message) reply {
	r := reply{c: c, msg: msg, from: msg}
	if len(m.Error) > 0 {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(m.Error, &e)
		r.rpcErr, r.code, r.message = m.Error, e.Code, e.Message
		switch {
		case g.isUnknownTool(c, e.Code, e.Message):
			r.ans = pipeline.Answer{Err: true, Protocol: true}
		case pipeline.ReadSDKError(e.Code, e.Message, c.tool) == pipeline.SDKMissing:
			r.ans = pipeline.Answer{Nil: true}
		default:
			r.ans = pipeline.Answer{IsError: true} // the tool's failure, its message the text
		}
		return r
	}
	r.result = m.Result
	if !c.taskResult {
		if out, ok := g.handle(c, m.Result); ok {
			r.ans = pipeline.Answer{Task: true}
			return r.withResult(out)
		}
	}
	if string(m.Result) == "null" {
		// go-sdk's answer to a handler that returned neither a result nor
		// an error: core/pipeline's Missing, as the fronts answer it
		r.ans = pipeline.Answer{Nil: true}
		return r
	}
	sealed, err := g.sealState(c, m.Result)
	if err != nil {
		return g.ownReply(ctx, c, g.r.Error(ctx, c.core(), err))
	}
	r = r.withResult(sealed)
	if !g.o.successes && isObject(r.result) && !mayBeError(r.result) && !mayHaveFailureMeta(r.result) {
		r.plain = true
		return r // a success: no decoding of the result
	}
	var res result
	if json.Unmarshal(r.result, &res) != nil {
		return g.ownReply(ctx, c, g.r.Error(ctx, c.core(),
			envelope.New(envelope.InternalError, "the upstream's tools/call result is not a valid result")))
	}
	r.res, r.ans = &res, res.answer()
	return r
}
