package envelope

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	redact "github.com/mcpguard/mcpguard/core/redact"
)

// The codes, sentinels, constructors and the envelope itself are those of
// the SDK-neutral core (github.com/mcpguard/mcpguard/core/envelope): the
// same types and the same values. A store package that returns
// envelope.ErrNotFound classifies identically under this mcp-go front and
// under the go-sdk front (github.com/mcpguard/mcpguard/gosdk), and one that
// imports core/envelope instead pulls in neither SDK.

// Code is one of the seven error types an envelope carries.
type Code = core.Code

// The seven codes.
const (
	AuthenticationFailed = core.AuthenticationFailed
	AccessDenied         = core.AccessDenied
	NotFound             = core.NotFound
	ConfigurationError   = core.ConfigurationError
	ValidationError      = core.ValidationError
	ExecutionFailed      = core.ExecutionFailed
	InternalError        = core.InternalError
)

// Error is an error with a code; build one with [New] or [Wrap], or wrap a
// sentinel with %w.
type Error = core.Error

// FieldError describes one invalid argument, in the terms of the JSON the
// agent sent.
type FieldError = core.FieldError

// Envelope is the JSON object a client receives for every tool failure.
type Envelope = core.Envelope

// The sentinels: wrap one with %w to give an error its code.
var (
	ErrAuthenticationFailed = core.ErrAuthenticationFailed
	ErrAccessDenied         = core.ErrAccessDenied
	ErrNotFound             = core.ErrNotFound
	ErrConfiguration        = core.ErrConfiguration
	ErrValidation           = core.ErrValidation
	ErrExecutionFailed      = core.ErrExecutionFailed
)

// MaxMessageBytes bounds an envelope's message, after redaction.
const MaxMessageBytes = core.MaxMessageBytes

// MaxFieldErrors bounds the field errors an envelope lists, then one entry
// with rule "more" counting the rest.
const MaxFieldErrors = core.MaxFieldErrors

// ToolFailureMetaKey is the _meta key [WithToolFailureMeta] fills.
const ToolFailureMetaKey = core.ToolFailureMetaKey

// Codes returns the seven codes.
func Codes() []Code { return core.Codes() }

// CodeOf returns the code of the first coded error in err's chain, or
// internal_error.
func CodeOf(err error) Code { return core.CodeOf(err) }

// New returns an error with code and message.
func New(code Code, message string) error { return core.New(code, message) }

// Wrap gives err a code, keeping it reachable with errors.Is and As.
func Wrap(code Code, err error) error { return core.Wrap(code, err) }

// Internal marks err as the server's own failure: internal_error whatever
// it wraps, before mappings and the standard library rules (a missing data
// directory wraps fs.ErrNotExist too, but is no not_found of the agent's).
func Internal(err error) error { return core.Internal(err) }

// AddNextSteps adds tool-specific next steps, listed before the code's
// defaults.
func AddNextSteps(err error, steps ...string) error { return core.AddNextSteps(err, steps...) }

// ReplaceNextSteps sets the next steps, dropping the code's defaults.
func ReplaceNextSteps(err error, steps ...string) error { return core.ReplaceNextSteps(err, steps...) }

// AddFields attaches invalid-argument details to a validation error.
func AddFields(err error, fields ...FieldError) error { return core.AddFields(err, fields...) }

// SetRetryable overrides the code's retryable default.
func SetRetryable(err error, retryable bool) error { return core.SetRetryable(err, retryable) }

// SetRetryAfter says how long the agent should wait before repeating the
// call (retry_after_ms).
func SetRetryAfter(err error, d time.Duration) error { return core.SetRetryAfter(err, d) }

// Is is errors.Is over a bounded walk of err's chain.
func Is(err, target error) bool { return core.Is(err, target) }

// As is errors.As over the same bounded walk as [Is].
func As[T error](err error) (T, bool) { return core.As[T](err) }

// Parse decodes an envelope from JSON text.
func Parse(text string) (*Envelope, bool) { return core.Parse(text) }

// DefaultNextSteps returns the built-in next steps for c.
func DefaultNextSteps(c Code) []string { return core.DefaultNextSteps(c) }

// Option configures the envelope layer and its [Renderer].
type Option = core.Option

// WithMapping classifies errors matching target (errors.Is) as code.
func WithMapping(target error, code Code) Option { return core.WithMapping(target, code) }

// WithMapper classifies errors with fn, before [WithMapping]'s targets.
func WithMapper(fn func(error) (Code, bool)) Option { return core.WithMapper(fn) }

// WithDefaultNextSteps replaces the built-in next steps for code.
func WithDefaultNextSteps(code Code, steps ...string) Option {
	return core.WithDefaultNextSteps(code, steps...)
}

// WithLogger sets the logger for internal errors (slog.Default otherwise).
func WithLogger(l *slog.Logger) Option { return core.WithLogger(l) }

// WithRedactor replaces the redactor applied to messages, steps and fields.
func WithRedactor(r *redact.Redactor) Option { return core.WithRedactor(r) }

// WithInternalMessage replaces the generic message of internal errors.
func WithInternalMessage(msg string) Option { return core.WithInternalMessage(msg) }

// WithUnclassified sets the code of errors nothing classifies
// (internal_error by default).
func WithUnclassified(code Code) Option { return core.WithUnclassified(code) }

// WithToolFailureMeta repeats the envelope under [ToolFailureMetaKey] in
// the result's _meta.
func WithToolFailureMeta() Option { return core.WithToolFailureMeta() }

// WithTrustedEnvelopes keeps the next_steps and retryable of envelopes that
// handlers return as text, and nothing else: their fields are capped and
// bounded, and a toolFailure _meta of the handler's dropped, either way.
func WithTrustedEnvelopes() Option { return core.WithTrustedEnvelopes() }

// WithoutNormalization leaves error results that handlers build themselves
// as they are.
func WithoutNormalization() Option { return core.WithoutNormalization() }

// Overlay is a layer's own envelope options over the renderer of the
// chain it runs in: a layer builds it once with [NewOverlay] and renders
// each call with RendererFrom(ctx, nil).Over(overlay), the chain's
// configuration plus its own, without allocating once it has served a
// call of that chain. See core's Overlay.
type Overlay = core.Overlay

// NewOverlay returns the [Overlay] of opts; nil, which adds nothing,
// without options.
func NewOverlay(opts ...Option) *Overlay { return core.NewOverlay(opts...) }

// StepsFunc computes next steps when an error is rendered, with the call
// and the code it was classified as. Return replace to drop the code's
// default steps. err is the handler's error, or a [ResultText] for a
// failure that arrived as an error result's text.
type StepsFunc func(ctx context.Context, req mcp.CallToolRequest, code Code, err error) (steps []string, replace bool)

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

// core adapts fn to the core's call type. An error rendered by another SDK's
// front reaches fn with a request rebuilt from the call's tool name and
// arguments.
func (fn StepsFunc) core() core.StepsFunc {
	return func(ctx context.Context, call core.Call, code Code, err error) ([]string, bool) {
		req, ok := call.Request.(mcp.CallToolRequest)
		if !ok {
			req.Params.Name = call.Tool
			req.Params.Arguments = call.Args
		}
		return fn(ctx, req, code, err)
	}
}

// call is the core's view of an mcp-go request.
func call(req mcp.CallToolRequest) core.Call {
	return core.Call{Tool: req.Params.Name, Args: req.GetRawArguments(), Request: req}
}
