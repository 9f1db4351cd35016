package middleware

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
	"github.com/mcpguard/mcpguard/redact"
)

// The attribute keys of the record [Logging] writes, for log queries and
// handlers that treat some keys specially.
const (
	LogKeyTool       = logkey.Tool
	LogKeyDuration   = logkey.Duration
	LogKeyOutcome    = logkey.Outcome
	LogKeyErrorType  = logkey.ErrorType
	LogKeyIncidentID = logkey.IncidentID
	LogKeyError      = logkey.Error
	LogKeyArguments  = logkey.Arguments
)

// LogMessage is the message of the record [Logging] writes.
const LogMessage = logkey.Message

// LogOption configures [Logging].
type LogOption func(*logOptions)

type logOptions struct {
	args         bool
	successLevel slog.Level
	errorLevel   slog.Level
}

// WithArguments adds the call's arguments to each record, as JSON with the
// value of every key that names a secret masked whatever its type
// ([redact.IsSecretKey]: db_password, dbPassword, x-api-key, authorization,
// GITHUB_TOKEN, …) and secret-shaped values and paths redacted with the
// default rules. Arguments are not logged by default:
// they are user data.
func WithArguments() LogOption { return func(o *logOptions) { o.args = true } }

// WithLevels sets the level of successful calls and of tool errors.
// Internal errors and protocol errors are always logged at Error. The
// defaults are Info and Warn.
func WithLevels(success, toolError slog.Level) LogOption {
	return func(o *logOptions) { o.successLevel, o.errorLevel = success, toolError }
}

// Logging writes one record per tool call to logger: the tool, the
// duration, the outcome ("success", "tool_error" or "protocol_error"), and
// for failures the error_type and incident_id the client received. It
// never changes what the client receives, and a failing log handler cannot
// fail the call.
//
// Put it outermost, as [Default] does, so it records what the client
// finally sees, panics included.
func Logging(logger *slog.Logger, opts ...LogOption) server.ToolHandlerMiddleware {
	if logger == nil {
		panic("middleware: Logging needs a logger")
	}
	o := logOptions{successLevel: slog.LevelInfo, errorLevel: slog.LevelWarn}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			o.record(ctx, logger, req, res, err, time.Since(start))
			return res, err
		}
	}
}

func (o *logOptions) record(ctx context.Context, l *slog.Logger, req mcp.CallToolRequest, res *mcp.CallToolResult, err error, d time.Duration) {
	_ = safe.Call(func() {
		level, outcome, env := o.classify(res, err)
		if !l.Enabled(ctx, level) {
			return
		}
		attrs := make([]slog.Attr, 0, 8)
		attrs = append(attrs,
			slog.String(LogKeyTool, req.Params.Name),
			slog.Duration(LogKeyDuration, d),
			slog.String(LogKeyOutcome, outcome),
		)
		if env != nil {
			attrs = append(attrs, slog.String(LogKeyErrorType, string(env.ErrorType)))
			if env.IncidentID != "" {
				attrs = append(attrs, slog.String(LogKeyIncidentID, env.IncidentID))
			}
		}
		if err != nil {
			attrs = append(attrs, slog.String(LogKeyError, safe.Error(err)))
		}
		if o.args {
			attrs = append(attrs, slog.String(LogKeyArguments, maskedArguments(req)))
		}
		l.LogAttrs(ctx, level, LogMessage, attrs...)
	})
}

// classify returns the level and outcome of a call whose client received
// res or err, and the envelope it received, if any. (Plain ifs rather than
// a switch of conditions: gremlins maps a case's expression to no coverage
// block, so its mutants would count as not covered.)
func (o *logOptions) classify(res *mcp.CallToolResult, err error) (slog.Level, string, *envelope.Envelope) {
	if err != nil || res == nil {
		return slog.LevelError, logkey.OutcomeProtocolError, nil
	}
	if !res.IsError {
		return o.successLevel, logkey.OutcomeSuccess, nil
	}
	env, ok := envelope.FromResult(res)
	if !ok {
		return o.errorLevel, logkey.OutcomeToolError, nil
	}
	if env.ErrorType == envelope.InternalError {
		return slog.LevelError, logkey.OutcomeToolError, env
	}
	return o.errorLevel, logkey.OutcomeToolError, env
}

func maskedArguments(req mcp.CallToolRequest) string {
	var raw []byte
	if len(req.Params.RawArguments) > 0 {
		raw = req.Params.RawArguments
	} else if req.Params.Arguments != nil {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return "<unencodable>"
		}
		raw = b
	} else {
		return "{}"
	}
	// Text, not JSON: key-aware for members of any type, and plain-text
	// rules (pairs included) for arguments that are not an object.
	return redact.Default().Text(string(raw))
}
