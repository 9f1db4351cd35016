package gosdk

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// LogMessage is the message of the record [WithLogger] writes per tool
// call, the same as the mcp-go front's middleware.LogMessage, so one log
// query finds the calls of both fronts. Its attributes use the same keys:
// tool, duration, outcome ("success", "tool_error" or "protocol_error"),
// and for failures error_type and incident_id, error for a protocol error,
// arguments with [WithArguments].
const LogMessage = logkey.Message

// LogOption configures the per-call record of [WithLogger].
type LogOption func(*logger)

// WithArguments adds the call's arguments to each record, as JSON with
// the value of every key that names a secret masked whatever its type, and
// secret-shaped values and paths redacted with the default rules.
// Arguments are not logged by default: they are user data.
func WithArguments() LogOption { return func(l *logger) { l.args = true } }

// WithLevels sets the level of successful calls and of tool errors.
// Internal errors and protocol errors are always logged at Error. The
// defaults are Info and Warn.
func WithLevels(success, toolError slog.Level) LogOption {
	return func(l *logger) { l.success, l.toolError = success, toolError }
}

// logger writes the per-call record. It sits outermost in the chain, so it
// records what the client finally saw, a recovered panic included.
type logger struct {
	l         *slog.Logger
	args      bool
	success   slog.Level
	toolError slog.Level
}

func newLogger(l *slog.Logger, opts []LogOption) *logger {
	lg := &logger{l: l, success: slog.LevelInfo, toolError: slog.LevelWarn}
	for _, opt := range opts {
		if opt != nil {
			opt(lg)
		}
	}
	return lg
}

// record logs one call; a failing log handler cannot fail the call.
func (lg *logger) record(ctx context.Context, req *mcp.CallToolRequest, res mcp.Result, err error, d time.Duration) {
	_ = safe.Call(func() {
		level, outcome, env := lg.outcome(res, err)
		if !lg.l.Enabled(ctx, level) {
			return
		}
		call := callOf(req)
		attrs := make([]slog.Attr, 0, 8)
		attrs = append(attrs,
			slog.String(logkey.Tool, call.Tool),
			slog.Duration(logkey.Duration, d),
			slog.String(logkey.Outcome, outcome),
		)
		if env != nil {
			attrs = append(attrs, slog.String(logkey.ErrorType, string(env.ErrorType)))
			if env.IncidentID != "" {
				attrs = append(attrs, slog.String(logkey.IncidentID, env.IncidentID))
			}
		}
		if err != nil {
			attrs = append(attrs, slog.String(logkey.Error, safe.Error(err)))
		}
		if lg.args {
			attrs = append(attrs, slog.String(logkey.Arguments, maskedArguments(req)))
		}
		lg.l.LogAttrs(ctx, level, LogMessage, attrs...)
	})
}

// outcome classifies what the client received.
func (lg *logger) outcome(res mcp.Result, err error) (slog.Level, string, *core.Envelope) {
	r, _ := res.(*mcp.CallToolResult)
	switch {
	case err != nil, r == nil:
		return slog.LevelError, logkey.OutcomeProtocolError, nil
	case !r.IsError:
		return lg.success, logkey.OutcomeSuccess, nil
	}
	env, ok := renderedEnvelope(r)
	if !ok {
		env, ok = core.Parse(textOf(r.Content))
	}
	if ok && env.ErrorType == core.InternalError {
		return slog.LevelError, logkey.OutcomeToolError, env
	}
	if !ok {
		env = nil
	}
	return lg.toolError, logkey.OutcomeToolError, env
}

// maskedArguments renders the call's arguments for the log: text, not
// JSON, so that it is key-aware for members of any type and applies the
// plain-text rules to arguments that are not an object.
func maskedArguments(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return "{}"
	}
	return redact.Default().Text(string(req.Params.Arguments))
}
