package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
)

// This file is a consumer of the chain over plain JSON, as small as a
// consumer can be: a call is a tool, its raw arguments and its caller; an
// answer is a tool result or an error, sent as a JSON-RPC response. The
// tests read that response as a client would (core/wiretest).

type call struct {
	Tool    string
	Args    json.RawMessage
	Session string
}

type item struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type result struct {
	Content    []item         `json:"content"`
	Structured any            `json:"structuredContent,omitempty"`
	IsError    bool           `json:"isError,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
	ResultType string         `json:"resultType,omitempty"`
	// ours is the envelope this consumer rendered into the result.
	ours *envelope.Envelope
	// unsendable makes the result fail to encode.
	unsendable bool
	// shown is the error the SDK would show as the result's text.
	shown error
}

// rpcError is a JSON-RPC error that stays one.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

type answer struct {
	res *result
	err error
}

// wire is the JSON-RPC response the client receives for an.
func wire(an answer) []byte {
	var resp struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      int       `json:"id"`
		Result  *result   `json:"result,omitempty"`
		Error   *rpcError `json:"error,omitempty"`
	}
	resp.JSONRPC, resp.ID = "2.0", 1
	var pe *rpcError
	switch {
	case errors.As(an.err, &pe):
		resp.Error = &rpcError{Code: pe.Code, Message: an.err.Error()}
	case an.err != nil:
		resp.Error = &rpcError{Code: -32603, Message: an.err.Error()}
	case an.res == nil:
		resp.Error = &rpcError{Code: -32603, Message: "no result"}
	default:
		resp.Result = an.res
	}
	b, err := json.Marshal(resp)
	if err != nil {
		panic(err)
	}
	return b
}

type record struct {
	tool    string
	outcome pipeline.Outcome
}

// jsonAdapter is the chain's adapter for this consumer.
type jsonAdapter struct {
	r        *envelope.Renderer
	tools    map[string]bool
	records  *[]record
	panicRec bool // Recovered itself panics
	// panicRedact: Redact panics
	panicRedact bool
}

func (a jsonAdapter) Call(_ context.Context, q call) envelope.Call {
	return envelope.Call{Tool: q.Tool, Args: q.Args}
}

func (a jsonAdapter) Known(_ context.Context, q call) bool { return a.tools[q.Tool] }

func (jsonAdapter) Read(_ context.Context, an answer) pipeline.Answer {
	var pe *rpcError
	if an.err != nil {
		return pipeline.Answer{Err: true, Protocol: errors.As(an.err, &pe)}
	}
	if an.res == nil {
		return pipeline.Answer{Nil: true}
	}
	return pipeline.Answer{IsError: an.res.IsError, ResultType: an.res.ResultType}
}

func (jsonAdapter) Err(an answer) error { return an.err }

func (jsonAdapter) Rendered(_ context.Context, _ call, an answer) (answer, bool) {
	return an, an.res.ours != nil
}

func (jsonAdapter) Shown(an answer) error { return an.res.shown }

func (jsonAdapter) Text(an answer) string {
	return pipeline.JoinText(an.res.Content, func(it item) (string, bool) { return it.Text, it.Type == "text" })
}

func (a jsonAdapter) Write(_ context.Context, _ call, env *envelope.Envelope, an answer) answer {
	in := pipeline.ErrorInput{Envelope: env, Renderer: a.r}
	if an.res != nil && an.err == nil {
		in.Meta = an.res.Meta
	}
	shape := pipeline.BuildError(in)
	out := &result{Content: []item{{"text", shape.Text}}, IsError: true, Meta: shape.Meta, ours: env}
	if shape.Structured != nil {
		out.Structured = shape.Structured
	}
	return answer{res: out}
}

func (jsonAdapter) DropForged(an answer) answer {
	meta, dropped := envelope.DropFailureMeta(an.res.Meta)
	if !dropped {
		return an
	}
	cp := *an.res
	cp.Meta = meta
	return answer{res: &cp}
}

func (jsonAdapter) Protocol(_ context.Context, _ call, an answer) answer { return an }

func (a jsonAdapter) Redact(red *redact.Redactor, an answer) answer {
	if a.panicRedact {
		panic("the redactor panicked")
	}
	if an.err != nil {
		var pe *rpcError
		errors.As(an.err, &pe)
		return answer{err: &rpcError{Code: pe.Code, Message: red.String(an.err.Error())}}
	}
	cp := *an.res
	cp.Content = nil
	for _, it := range an.res.Content {
		cp.Content = append(cp.Content, item{it.Type, red.String(it.Text)})
	}
	return answer{res: &cp}
}

func (jsonAdapter) Envelope(an answer) (*envelope.Envelope, bool) {
	if an.res == nil || an.res.ours == nil {
		return nil, false
	}
	return an.res.ours, true
}

func (a jsonAdapter) Refuse(ctx context.Context, q call, err error) answer {
	return a.Write(ctx, q, a.r.Error(ctx, a.Call(ctx, q), err), answer{})
}

func (a jsonAdapter) Recovered(ctx context.Context, q call, v any) answer {
	if a.panicRec {
		panic("the logger panicked too")
	}
	return a.Write(ctx, q, a.r.Recovered(ctx, q.Tool, v, envelope.RecoverOptions{}), answer{})
}

func (jsonAdapter) Fallback(call) answer {
	env := envelope.FallbackInternal()
	return answer{res: &result{Content: []item{{"text", string(env.Marshal())}}, IsError: true}}
}

func (a jsonAdapter) Sendable(ctx context.Context, q call, an answer) answer {
	if an.res == nil || !an.res.unsendable {
		return an
	}
	return a.Write(ctx, q, a.r.Unencodable(ctx, q.Tool, errors.New("json: unsupported value"), nil), answer{})
}

func (a jsonAdapter) Record(ctx context.Context, q call, an answer, _ time.Duration) {
	*a.records = append(*a.records, record{q.Tool, pipeline.Decide(a.Read(ctx, an))})
}

// discard is a logger that writes nowhere.
var discard = slog.New(slog.DiscardHandler)

// Failed is the answer of a handler that returned err.
func (jsonAdapter) Failed(err error) answer { return answer{err: err} }
