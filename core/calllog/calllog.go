package calllog

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Message is the message of the record [Logger.Record] writes, on both
// fronts, so that one log query finds the calls of both.
const Message = logkey.Message

// The attribute keys of the record, for log queries and handlers that
// treat some keys specially.
const (
	KeyTool       = logkey.Tool
	KeyDuration   = logkey.Duration
	KeyOutcome    = logkey.Outcome
	KeyErrorType  = logkey.ErrorType
	KeyIncidentID = logkey.IncidentID
	KeyError      = logkey.Error
	KeyArguments  = logkey.Arguments
	KeyAdmission  = logkey.Admission
	KeyHeldMS     = logkey.HeldMS
)

// Outcome is what the client received, as the front read it off its SDK's
// answer.
type Outcome uint8

// The outcomes. The zero value is ProtocolError, so that an answer the
// front could not read is never recorded as a success.
const (
	// ProtocolError: a JSON-RPC error, or no result at all.
	ProtocolError Outcome = iota
	// Success: a result without isError.
	Success
	// ToolError: a result with isError, an envelope or not.
	ToolError
	// InputRequired: a multi round-trip result asking the client for input
	// before the call completes. Not a failure: it is logged at the level
	// of successes.
	InputRequired
)

// String returns the value of the outcome attribute: "protocol_error",
// "success", "tool_error" or "input_required".
func (o Outcome) String() string {
	switch o {
	case Success:
		return logkey.OutcomeSuccess
	case ToolError:
		return logkey.OutcomeToolError
	case InputRequired:
		return logkey.OutcomeInputRequired
	}
	return logkey.OutcomeProtocolError
}

// Call is one finished tool call, as the front read it off its SDK's
// request and answer.
type Call struct {
	// Tool is the name of the tool called.
	Tool string
	// Duration is how long the call took.
	Duration time.Duration
	// Outcome is what the client received.
	Outcome Outcome
	// Envelope is the envelope a [ToolError] result carried, if it carried
	// one; it is ignored for the other outcomes.
	Envelope *envelope.Envelope
	// Err is the error the client received as a JSON-RPC error, if any.
	Err error
	// RawArgs is the call's arguments as the client sent them, JSON.
	RawArgs []byte
	// Args is the call's decoded arguments, encoded to JSON for the record
	// only when RawArgs is empty (an SDK that keeps only the decoded form).
	Args any
	// Note is what the call's stages noted ([Logger.Noting]), nil for
	// nothing.
	Note *Note
}

// Option configures a [Logger].
type Option func(*Logger)

// WithArguments adds the call's arguments to each record, as JSON with the
// value of every key that names a secret masked whatever its type
// ([redact.IsSecretKey]: db_password, dbPassword, x-api-key, authorization,
// GITHUB_TOKEN, …) and secret-shaped values and paths redacted with the
// default rules. Arguments are not logged by default: they are user data.
func WithArguments() Option { return func(l *Logger) { l.args = true } }

// WithLevels sets the level of successful calls and of tool errors.
// Internal errors and protocol errors are always logged at Error. The
// defaults are Info and Warn.
func WithLevels(success, toolError slog.Level) Option {
	return func(l *Logger) { l.success, l.toolError = success, toolError }
}

// Logger writes the per-call record. It is immutable and safe for
// concurrent use.
type Logger struct {
	l         *slog.Logger
	args      bool
	success   slog.Level
	toolError slog.Level
}

// New returns a Logger writing to l, with opts applied in order (nil
// options are skipped). It panics on a nil l.
func New(l *slog.Logger, opts ...Option) *Logger {
	if l == nil {
		panic("calllog: New needs a logger")
	}
	lg := &Logger{l: l, success: slog.LevelInfo, toolError: slog.LevelWarn}
	for _, opt := range opts {
		if opt != nil {
			opt(lg)
		}
	}
	return lg
}

// Record writes the record of c, unless its level is disabled. A log
// handler that panics cannot fail the call: the panic is dropped.
func (lg *Logger) Record(ctx context.Context, c Call) {
	_ = safe.Call(func() {
		level, env := lg.classify(&c)
		if !lg.l.Enabled(ctx, level) {
			return
		}
		attrs := make([]slog.Attr, 0, 9)
		attrs = append(attrs,
			slog.String(KeyTool, c.Tool),
			slog.Duration(KeyDuration, c.Duration),
			slog.String(KeyOutcome, c.Outcome.String()),
		)
		if env != nil {
			attrs = append(attrs, slog.String(KeyErrorType, string(env.ErrorType)))
			if env.IncidentID != "" {
				attrs = append(attrs, slog.String(KeyIncidentID, env.IncidentID))
			}
		}
		if c.Err != nil {
			attrs = append(attrs, slog.String(KeyError, safe.Error(c.Err)))
		}
		if a, held := c.Note.Admission(); a != "" {
			attrs = append(attrs, slog.String(KeyAdmission, a), slog.Int64(KeyHeldMS, held.Milliseconds()))
		}
		if lg.args {
			attrs = append(attrs, slog.String(KeyArguments, maskedArguments(c.RawArgs, c.Args)))
		}
		lg.l.LogAttrs(ctx, level, Message, attrs...)
	})
}

// classify returns the level of c's record and the envelope it reports.
// (Plain ifs rather than a switch of conditions: gremlins maps a case's
// expression to no coverage block, so its mutants would count as not
// covered.)
func (lg *Logger) classify(c *Call) (slog.Level, *envelope.Envelope) {
	if c.Outcome == Success || c.Outcome == InputRequired {
		return lg.success, nil
	}
	if c.Outcome != ToolError {
		return slog.LevelError, nil
	}
	if c.Envelope != nil && c.Envelope.ErrorType == envelope.InternalError {
		return slog.LevelError, c.Envelope
	}
	return lg.toolError, c.Envelope
}

// maskedArguments renders the call's arguments for the log: text, not
// JSON, so that it is key-aware for members of any type and applies the
// plain-text rules (pairs included) to arguments that are not an object.
func maskedArguments(raw []byte, args any) string {
	if len(raw) == 0 {
		if args == nil {
			return "{}"
		}
		b, err := json.Marshal(args)
		if err != nil {
			return "<unencodable>"
		}
		raw = b
	}
	return redact.Default().Text(string(raw))
}
