package middleware

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
)

// The attribute keys of the record [Logging] writes, for log queries and
// handlers that treat some keys specially.
const (
	LogKeyTool       = calllog.KeyTool
	LogKeyDuration   = calllog.KeyDuration
	LogKeyOutcome    = calllog.KeyOutcome
	LogKeyErrorType  = calllog.KeyErrorType
	LogKeyIncidentID = calllog.KeyIncidentID
	LogKeyError      = calllog.KeyError
	LogKeyArguments  = calllog.KeyArguments
	LogKeyAdmission  = calllog.KeyAdmission
	LogKeyHeldMS     = calllog.KeyHeldMS
)

// LogMessage is the message of the record [Logging] writes.
const LogMessage = calllog.Message

// LogOption configures [Logging]. It is the core's option, so the same
// options configure the go-sdk front's record (gosdk.LogOption).
type LogOption = calllog.Option

// WithArguments adds the call's arguments to each record, as JSON with the
// value of every key that names a secret masked whatever its type
// ([redact.IsSecretKey]: db_password, dbPassword, x-api-key, authorization,
// GITHUB_TOKEN, …) and secret-shaped values and paths redacted with the
// default rules. Arguments are not logged by default:
// they are user data.
func WithArguments() LogOption { return calllog.WithArguments() }

// WithLevels sets the level of successful calls and of tool errors.
// Internal errors and protocol errors are always logged at Error. The
// defaults are Info and Warn.
func WithLevels(success, toolError slog.Level) LogOption {
	return calllog.WithLevels(success, toolError)
}

// Logging writes one record per tool call to logger: the tool, the
// duration, the outcome ("success", "tool_error" or "protocol_error"), and
// for failures the error_type and incident_id the client received; for a
// call a limit held, the admission ("held", or "refused" after the hold)
// and held_ms. It
// never changes what the client receives, and a failing log handler cannot
// fail the call.
//
// Put it outermost, as [Default] does, so it records what the client
// finally sees, panics included.
//
// At the first call it sees on a server, it lists that server's tools in
// process (a tools/list through HandleMessage, which the server's hooks
// see) and, if some are task tools added with s.AddTaskTool, which mcp-go
// runs outside the chain, says so once at Warn ([TaskToolsLogMessage]).
func Logging(logger *slog.Logger, opts ...LogOption) server.ToolHandlerMiddleware {
	if logger == nil {
		panic("middleware: Logging needs a logger")
	}
	lg := calllog.New(logger, opts...)
	tasks := &unguardedTasks{}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tasks.check(ctx, logger)
			start := time.Now()
			inner, note := lg.Noting(ctx)
			res, err := next(inner, req)
			c := logCall(req, res, err, time.Since(start))
			c.Note = note
			lg.Record(ctx, c)
			return res, err
		}
	}
}

// logCall reads what the client received off mcp-go's answer.
func logCall(req mcp.CallToolRequest, res *mcp.CallToolResult, err error, d time.Duration) calllog.Call {
	c := calllog.Call{Tool: req.Params.Name, Duration: d, Err: err, RawArgs: req.Params.RawArguments, Args: req.Params.Arguments}
	if err != nil || res == nil {
		return c // calllog.ProtocolError
	}
	c.Outcome = pipeline.Decide(envelope.AnswerOf(res, nil)).Policy().Log
	if c.Outcome == calllog.ToolError {
		c.Envelope, _ = envelope.FromResult(res)
	}
	return c
}
