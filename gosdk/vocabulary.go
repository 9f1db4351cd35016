package gosdk

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/calllog"
	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// The names below are those the mcp-go front exports for the same
// concepts (envelope.MaxMessageBytes, envelope.DefaultNextSteps,
// envelope.AddStepsFunc, middleware.LogKeyTool, …), so that code and
// documentation read the same on both fronts. The table in this package's
// documentation maps the names a Go package boundary keeps apart.

// MaxMessageBytes bounds an envelope's message, in bytes after redaction.
const MaxMessageBytes = core.MaxMessageBytes

// The attribute keys of the record [WithLogger] writes, the same as the
// mcp-go front's middleware.LogKeyTool and the rest, for log queries and
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

// DefaultNextSteps returns the steps every envelope of code ends with,
// unless [WithDefaultNextSteps] replaced them. The slice is a copy.
func DefaultNextSteps(c Code) []string { return core.DefaultNextSteps(c) }

// WithTrustedEnvelopes keeps the next_steps and retryable of envelopes that
// handlers return as text, and nothing else: their fields are capped and
// bounded, and a toolFailure _meta of the handler's dropped, either way.
func WithTrustedEnvelopes() Option { return WithEnvelopeOptions(core.WithTrustedEnvelopes()) }

// StepsFunc computes next steps when an error is rendered, with the call
// and the code it was classified as. Return replace to drop the code's
// default steps. err is the handler's error, or a [ResultText] for a
// failure that arrived as an error result's text.
type StepsFunc func(ctx context.Context, req *mcp.CallToolRequest, code Code, err error) (steps []string, replace bool)

// ResultText is the err a [StepsFunc] receives for a failure that arrived
// as an error result's text rather than as a Go error.
type ResultText = core.ResultText

// AddStepsFunc attaches fn to err: its steps are computed when err is
// rendered.
func AddStepsFunc(err error, fn StepsFunc) error {
	if fn == nil {
		return err
	}
	return core.AddStepsFunc(err, fn.core())
}

// ContextWithStepsFunc returns ctx carrying fn: every error rendered with
// that context gets fn's steps.
func ContextWithStepsFunc(ctx context.Context, fn StepsFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return core.ContextWithStepsFunc(ctx, fn.core())
}

// core adapts fn to the core's call type. An error rendered by another
// SDK's front reaches fn with a request rebuilt from the call's tool name
// and arguments.
func (fn StepsFunc) core() core.StepsFunc {
	return func(ctx context.Context, call core.Call, code Code, err error) ([]string, bool) {
		req, ok := call.Request.(*mcp.CallToolRequest)
		if !ok || req == nil {
			req = &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: call.Tool, Arguments: rawArgs(call.Args)}}
		}
		return fn(ctx, req, code, err)
	}
}

// rawArgs is a call's arguments as go-sdk holds them: JSON.
func rawArgs(args any) json.RawMessage {
	if raw, ok := args.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	return b
}

// The bounds [AddTool] puts on a call's arguments unless [WithMaxDepth]
// and [WithMaxBytes] change them, the same as the mcp-go front's
// validate.DefaultMaxDepth and validate.DefaultMaxBytes.
const (
	// DefaultMaxDepth bounds the nesting of objects and arrays in arguments.
	DefaultMaxDepth = validate.DefaultMaxDepth
	// DefaultMaxBytes bounds the size of the arguments' JSON text.
	DefaultMaxBytes = validate.DefaultMaxBytes
)

// WithMaxDepth sets how deeply objects and arrays may nest in a call's
// arguments (default [DefaultMaxDepth]); deeper input is refused with a
// validation_error before it is decoded.
func WithMaxDepth(n int) ToolOption { return validate.WithMaxDepth(n) }

// WithMaxBytes sets the largest arguments' JSON text a call may send
// (default [DefaultMaxBytes]); larger input is refused with a
// validation_error before it is decoded.
func WithMaxBytes(n int) ToolOption { return validate.WithMaxBytes(n) }
