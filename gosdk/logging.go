package gosdk

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/calllog"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// LogMessage is the message of the record [WithLogger] writes per tool
// call, the same as the mcp-go front's middleware.LogMessage, so one log
// query finds the calls of both fronts. Its attributes use the same keys:
// tool, duration, outcome ("success", "tool_error" or "protocol_error"),
// and for failures error_type and incident_id, error for a protocol error,
// arguments with [WithArguments]; admission and held_ms for a call a
// limit held.
const LogMessage = calllog.Message

// LogOption configures the per-call record of [WithLogger]. It is the
// core's option, so the same options configure the mcp-go front's record
// (middleware.LogOption).
type LogOption = calllog.Option

// WithArguments adds the call's arguments to each record, as JSON with
// the value of every key that names a secret masked whatever its type, and
// secret-shaped values and paths redacted with the default rules.
// Arguments are not logged by default: they are user data.
func WithArguments() LogOption { return calllog.WithArguments() }

// WithLevels sets the level of successful calls and of tool errors.
// Internal errors and protocol errors are always logged at Error. The
// defaults are Info and Warn.
func WithLevels(success, toolError slog.Level) LogOption {
	return calllog.WithLevels(success, toolError)
}

// logger writes the per-call record, the core's: this front only reads
// go-sdk's answer into a calllog.Call. It sits outermost in the chain, so
// it records what the client finally saw, a recovered panic included.
type logger calllog.Logger

func newLogger(l *slog.Logger, opts []LogOption) *logger {
	return (*logger)(calllog.New(l, opts...))
}

// record logs one call; a failing log handler cannot fail the call.
func (lg *logger) record(ctx context.Context, req *mcp.CallToolRequest, res mcp.Result, err error, d time.Duration, note *calllog.Note) {
	c := logCall(req, res, err, d)
	c.Note = note
	(*calllog.Logger)(lg).Record(ctx, c)
}

// logCall reads what the client received off go-sdk's answer.
func logCall(req *mcp.CallToolRequest, res mcp.Result, err error, d time.Duration) calllog.Call {
	c := calllog.Call{Duration: d, Err: err}
	if req != nil && req.Params != nil {
		c.Tool, c.RawArgs = req.Params.Name, req.Params.Arguments
	}
	r, _ := res.(*mcp.CallToolResult)
	if err != nil || r == nil {
		return c // calllog.ProtocolError
	}
	c.Outcome = pipeline.Decide(AnswerOf(r)).Policy().Log
	if c.Outcome == calllog.ToolError {
		c.Envelope = envelopeOf(r)
	}
	return c
}

// envelopeOf returns the envelope an error result carries: the one this
// package rendered, or one a handler built as text; nil for neither.
func envelopeOf(r *mcp.CallToolResult) *core.Envelope {
	if env, ok := renderedEnvelope(r); ok {
		return env
	}
	if env, ok := core.Parse(textOf(r.Content)); ok {
		return env
	}
	return nil
}
