package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file writes the answers the guard sends the client: the upstream's
// response to a tools/call through core/chain (answer, end; the adapter
// is adapter.go's), an envelope rendered as a result (errorResult), and
// the proxy's own answers and JSON-RPC errors.

// answer rewrites the upstream's response to a tools/call, msg, whose
// head is m, through the stages that wrap a call's answer (adapter.go).
// It returns msg itself when nothing changes.
func (g *Guard) answer(ctx context.Context, c *call, msg []byte, m *rpc.Message) []byte {
	if len(m.Error) == 0 && !c.taskResult && !g.o.successes && plainSuccess(m.Result) {
		// the success path, what read finds in more steps
		return g.end(ctx, c, reply{c: c, msg: msg, from: msg, result: m.Result, plain: true})
	}
	r := reply{c: c, msg: msg, from: msg}
	if p := safe.Call(func() { r = g.read(ctx, c, msg, m) }); p != nil {
		// read runs the proxy's inner stages (the task handle, the
		// sealing): a panic there is answered as one in End would be.
		r = adapter{g}.Recovered(ctx, c, p)
	}
	return g.end(ctx, c, r)
}

// end finishes r, c's reply, through core/chain's stages, and settles the
// repeated-failure guard with it when it admitted c and r is c's first
// answer; the answer to a tasks/result, or to a call the guard counted
// already, runs the stages without the guard.
func (g *Guard) end(ctx context.Context, c *call, r reply) []byte {
	if c.admitted && !c.taskResult && c.settled.CompareAndSwap(false, true) {
		return c.run.End(ctx, r).msg
	}
	run, _, _ := g.finishing.Begin(ctx, c)
	return run.End(ctx, r).msg
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
	return respond(c.id, g.errorResult(c, env, nil))
}

// respond is a JSON-RPC response carrying result.
func respond(id, result []byte) []byte {
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
	return g.final(ctx, c, g.r.Internal(c.tool, id))
}

// final is the proxy's own answer to c, env, through the stages that
// wrap a call's answer, as an answer of the upstream's is (end): the
// guard settles with it and the log records it.
func (g *Guard) final(ctx context.Context, c *call, env *envelope.Envelope) []byte {
	return g.end(ctx, c, g.ownReply(ctx, c, env))
}

// panicked is the envelope that answers c after the upstream recovered a
// panic in its handler, as the fronts answer one: an internal error under
// an incident that the log records with the upstream's text, which the
// client never reads.
func (g *Guard) panicked(ctx context.Context, c *call, msg string) *envelope.Envelope {
	id := incident.New()
	safe.Log(ctx, g.r.Logger(), slog.LevelError, "mcpguard-proxy: the upstream recovered a panic in a tool call",
		slog.String(logkey.Tool, c.tool), slog.String(logkey.IncidentID, id), slog.String(logkey.Error, msg))
	return g.r.Internal(c.tool, id)
}

// timedOut answers c after the timeout passed without an answer.
func (g *Guard) timedOut(ctx context.Context, c *call) []byte {
	return g.final(ctx, c, g.refusal(ctx, c, pipeline.Limits, limit.TimedOut(c.tool, g.o.timeout)))
}

// tooLarge answers c when the upstream's answer was over the bound.
func (g *Guard) tooLarge(ctx context.Context, c *call) []byte {
	return g.final(ctx, c, g.tooLargeEnvelope(ctx, c))
}

// tooLargeEnvelope is the envelope tooLarge renders.
func (g *Guard) tooLargeEnvelope(ctx context.Context, c *call) *envelope.Envelope {
	err := envelope.New(envelope.ExecutionFailed, "the tool's result is larger than the proxy's limit of "+
		sizeText(g.o.maxMessage)+"; ask for less: a smaller page, fewer fields or a narrower query")
	return g.r.Error(ctx, c.core(), err)
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
	return g.final(ctx, c, g.r.Error(ctx, c.core(), err))
}

// rpcError is a JSON-RPC error response to id.
func rpcError(id []byte, code int, msg string) []byte {
	return errorResponse(id, rpcErrorMember(code, msg))
}

// rpcErrorMember is the error member of a JSON-RPC error response.
func rpcErrorMember(code int, msg string) []byte {
	m, _ := json.Marshal(msg)
	e := make([]byte, 0, len(m)+32)
	e = append(e, `{"code":`...)
	e = strconv.AppendInt(e, int64(code), 10)
	e = append(e, `,"message":`...)
	e = append(e, m...)
	return append(e, '}')
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
func (g *Guard) redactedRPCError(r *redact.Redactor, clientID, e []byte) []byte {
	red := g.redactedJSON(r, e, nil)
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
func (g *Guard) redactedJSON(r *redact.Redactor, b, otherwise []byte) []byte {
	if red, ok := r.JSON(string(b)); ok && len(red) <= g.o.maxMessage {
		return []byte(red)
	}
	return otherwise
}
