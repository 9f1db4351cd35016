package otel

import (
	"context"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// Answer is what a request was answered with, as a consumer reads it off
// its SDK's types or the wire: all [End] needs to tell the outcome the
// span and the metric record, and the text [WithResults] records. A
// consumer reads nothing else and decides nothing of it.
type Answer[T any] struct {
	// Answer is what pipeline.Decide reads. Err: the request was answered
	// with an error; the telemetry layer is outermost, so the client
	// receives that error as a JSON-RPC error, and Protocol need not be set.
	pipeline.Answer
	// Code is the code of that JSON-RPC error as the client receives it
	// (0 when it carries none: go-sdk sends a plain Go error so).
	Code int
	// UnknownTool marks a call of a tool the server does not have.
	UnknownTool bool
	// Content is the result's content items, read by Text (false: not a
	// text item). A nil Text reads no item.
	Content []T
	Text    func(T) (string, bool)
}

// codeInternalError is JSON-RPC's internal error.
const codeInternalError = -32603

// End ends s with the outcome a says the request ended as, the one reading
// of an answer for every consumer: what pipeline.Decide makes of it, named
// by the outcome policy's log outcome, and the success's text recorded
// under [WithResults].
func End[T any](ctx context.Context, s Span, a Answer[T]) {
	s.End(ctx, outcomeOf(s, a))
}

func outcomeOf[T any](s Span, a Answer[T]) Outcome {
	pa := a.Answer
	pa.Protocol = pa.Protocol || pa.Err
	var out Outcome
	switch pipeline.Decide(pa).Policy().Log {
	case calllog.ProtocolError:
		code := a.Code
		if code == 0 {
			code = codeInternalError
		}
		out = RPCError(code)
	case calllog.ToolError:
		out = ToolError(firstText(a.Content, a.Text))
	case calllog.Success:
		if s.in.o.results && a.Text != nil {
			s.Result(pipeline.JoinText(a.Content, a.Text))
		}
	}
	out.UnknownTool = a.UnknownTool
	return out
}

// firstText is the text of the first content item, where every
// consumer's error result carries its envelope ("" for none).
func firstText[T any](items []T, text func(T) (string, bool)) string {
	if len(items) == 0 || text == nil {
		return ""
	}
	t, _ := text(items[0])
	return t
}
