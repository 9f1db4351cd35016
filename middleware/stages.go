package middleware

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/recover"
	mcpredact "github.com/mcpguard/mcpguard/redact"
)

// This file runs the stages of Default that wrap a call's answer
// (recover, repeats, redact, render), and the gates of admission before
// the first layer of the user's (pins, seal, hints, declared), as one
// core/chain: one layer, rather than one layer per stage. Each
// stage is its layer's own (recover.Stage, limit.RepeatsStage,
// redact.Stage, Renderer.Stage); this adapter only hands each method to
// the stage it belongs to.

// q and a are mcp-go's call and answer, as core/chain passes them.
type (
	q = mcp.CallToolRequest
	a = envelope.Answer
)

// stages is the adapter of Default's chain.
type stages struct {
	envelope.Reading
	rec chain.Recoverer[q, a]
	g   chain.Guarder[q, a] // nil: the guard is off, or a layer of its own
	red chain.Redacter[q, a]
	w   chain.Writer[q, a]
}

// Record: the log record is the Logging layer's, outside the chain.
func (stages) Record(context.Context, q, a, time.Duration) {}

func (s stages) Recovered(ctx context.Context, req q, v any) a { return s.rec.Recovered(ctx, req, v) }
func (s stages) Fallback(req q) a                              { return s.rec.Fallback(req) }
func (s stages) Sendable(ctx context.Context, req q, an a) a   { return s.rec.Sendable(ctx, req, an) }

// Known: mcp-go answers a call of a tool it does not have before any
// layer.
func (stages) Known(context.Context, q) bool                    { return true }
func (s stages) Envelope(an a) (*core.Envelope, bool)           { return s.g.Envelope(an) }
func (s stages) Refuse(ctx context.Context, req q, err error) a { return s.g.Refuse(ctx, req, err) }
func (s stages) Redact(r *redact.Redactor, an a) a              { return s.red.Redact(r, an) }
func (s stages) Err(an a) error                                 { return s.w.Err(an) }
func (s stages) Rendered(ctx context.Context, req q, an a) (a, bool) {
	return s.w.Rendered(ctx, req, an)
}
func (s stages) Shown(an a) error { return s.w.Shown(an) }
func (s stages) Text(an a) string { return s.w.Text(an) }
func (s stages) Write(ctx context.Context, req q, env *core.Envelope, an a) a {
	return s.w.Write(ctx, req, env, an)
}
func (s stages) DropForged(an a) a                           { return s.w.DropForged(an) }
func (s stages) Protocol(ctx context.Context, req q, an a) a { return s.w.Protocol(ctx, req, an) }

// answerLayers puts Default's recover, repeats, redact and render, with
// the gates of admission that run in the chain, into l: one chain, or,
// when WithRepeats gave a layer of the user's own, the chain of recover,
// that layer, and the chain of redact, render and the gates.
func answerLayers(l *pipeline.Layers[server.ToolHandlerMiddleware], o *defaultOptions, renderer *envelope.Renderer, recOpts []recover.Option, redOpts []mcpredact.Option, gates []chain.Admission[q]) {
	rec := recover.Stage(append(recOpts, recover.WithRenderer(renderer))...)
	red, redaction := mcpredact.Stage(redOpts...)
	s := stages{rec: rec, red: red, w: renderer.Stage()}
	cs := chain.Stages[q]{Recover: true, Redact: &redaction, Render: renderer.Core()}
	switch {
	case !o.repeatsSet:
		s.g, cs.Repeats = limit.RepeatsStage(limit.DefaultRepeatFailures, limit.DefaultRepeatWindow)
	case o.repeats != nil:
		l.Add(pipeline.Recover, envelope.Layer(chain.Recover(rec)))
		l.Add(pipeline.Repeats, o.repeats)
		cs.Recover = false
		l.Add(pipeline.Redact, renderer.Layer(chain.New[q, a](s, cs, gates...)))
		return
	}
	l.Add(pipeline.Recover, renderer.Layer(chain.New[q, a](s, cs, gates...)))
}
