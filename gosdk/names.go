package gosdk

import (
	"time"

	core "github.com/mcpguard/mcpguard/core/envelope"
)

// The codes, sentinels and constructors below are the SDK-neutral core's
// (github.com/mcpguard/mcpguard/core/envelope), the very values the mcp-go
// front's envelope package exports: gosdk.ErrNotFound == envelope.ErrNotFound,
// so a store package shared by an mcp-go front and a go-sdk front
// classifies identically under both. A package that imports core/envelope
// itself pulls in neither SDK.

// Code is one of the seven error types an envelope carries.
type Code = core.Code

// The seven codes.
const (
	// AuthenticationFailed: credentials missing, invalid or expired.
	AuthenticationFailed = core.AuthenticationFailed
	// AccessDenied: known caller, no permission; retrying does not help.
	AccessDenied = core.AccessDenied
	// NotFound: the resource the arguments name does not exist.
	NotFound = core.NotFound
	// ConfigurationError: the server is misconfigured; report it.
	ConfigurationError = core.ConfigurationError
	// ValidationError: the arguments are invalid; fix them.
	ValidationError = core.ValidationError
	// ExecutionFailed: the tool ran and its work failed.
	ExecutionFailed = core.ExecutionFailed
	// InternalError: unexpected; logged under an incident ID.
	InternalError = core.InternalError
)

// MaxFieldErrors bounds the field errors an envelope lists, then one entry
// with rule "more" counting the rest.
const MaxFieldErrors = core.MaxFieldErrors

// ToolFailureMetaKey is the _meta key [WithToolFailureMeta] fills; the
// Middleware drops a value under it that a handler set itself.
const ToolFailureMetaKey = core.ToolFailureMetaKey

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
