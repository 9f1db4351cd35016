package validate

import (
	"encoding/json"
	"log/slog"

	"github.com/go-playground/validator/v10"

	core "github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/envelope"
)

// The binding, validation and schema derivation live in the SDK-neutral
// core/validate, which the go-sdk front (gosdk.AddTool) uses too; these
// names are the same values and types, so that both fronts check and
// advertise a struct identically.

// Option configures [Args], [Handler], [StructuredHandler], [InputSchema]
// and [OutputSchema].
type Option = core.Option

// Defaults, chosen so that any argument object a tool can sensibly take
// passes, and so that what does not costs linear time to refuse.
const (
	// DefaultMaxDepth bounds the nesting of objects and arrays in arguments.
	DefaultMaxDepth = core.DefaultMaxDepth
	// DefaultMaxBytes bounds the size of the arguments' JSON text.
	DefaultMaxBytes = core.DefaultMaxBytes
	// MaxFieldErrors bounds the field errors one validation_error lists:
	// the first MaxFieldErrors violations, then one entry with rule
	// "more" whose param says how many more there are. With paths,
	// previews and keys clipped, it bounds the size of every validation
	// failure, whatever the size of the arguments.
	MaxFieldErrors = core.MaxFieldErrors
)

// WithValidator validates with v, a [Validator] wrapping a
// *validator.Validate that may carry custom tags, instead of the shared
// default. It panics on a nil v.
func WithValidator(v *Validator) Option { return core.WithValidator(v) }

// WithMaxDepth bounds how deeply objects and arrays may nest in the
// arguments (default [DefaultMaxDepth]); deeper input is refused before it
// is decoded. It panics unless n is positive.
func WithMaxDepth(n int) Option { return core.WithMaxDepth(n) }

// WithMaxBytes bounds the size of the arguments' JSON text (default
// [DefaultMaxBytes]); larger input is refused before it is decoded. It
// panics unless n is positive.
func WithMaxBytes(n int) Option { return core.WithMaxBytes(n) }

// WithEnvelopeOptions renders validation failures with these envelope
// options, e.g. a custom redactor or next steps for validation errors, so
// that they match the envelope layer's configuration.
func WithEnvelopeOptions(opts ...envelope.Option) Option { return core.WithEnvelopeOptions(opts...) }

// WithCoercion accepts a number or a boolean sent as a JSON string when
// the string holds exactly one ("1" or "2.5" for a number, "true" or
// "false" for a boolean), as some models send them. It is off by default,
// since the schema still says integer: the agent is not told, but each
// coerced call is logged (see [WithLogger]) with the paths coerced, so
// that the operator can see which tools and models need it.
func WithCoercion() Option { return core.WithCoercion() }

// WithLogger sends validate's own records, such as the coercions
// [WithCoercion] makes, to l instead of slog.Default(). It panics on a nil
// l.
func WithLogger(l *slog.Logger) Option { return core.WithLogger(l) }

// Validator is a *validator.Validate with the named patterns registered
// on it (see [Validator.RegisterPattern]); schema derivation needs both.
type Validator = core.Validator

// New wraps v, which may carry custom validations, aliases and struct-level
// rules. A nil v gets a fresh validator.New(). Validators registered on v
// directly are runtime-only as far as the schema is concerned: they are
// stated in the property's description and listed by [RuntimeOnly].
func New(v *validator.Validate) *Validator { return core.New(v) }

// Default returns the shared Validator that [Args], [Handler] and
// [InputSchema] use unless given [WithValidator].
func Default() *Validator { return core.Default() }

// RegisterPattern registers a named pattern on the default Validator; see
// [Validator.RegisterPattern].
func RegisterPattern(name, expr string) { core.RegisterPattern(name, expr) }

// Schema returns the JSON Schema derived from T's json, jsonschema and
// validate tags: the schema [InputSchema] advertises. It is derived once
// per type and Validator; the returned bytes are a copy.
func Schema[T any](opts ...Option) json.RawMessage { return core.Schema[T](opts...) }

// OutputSchemaOf returns the JSON Schema derived from Out's tags: the
// outputSchema [OutputSchema] advertises. The returned bytes are a copy.
func OutputSchemaOf[Out any](opts ...Option) json.RawMessage {
	return core.OutputSchemaOf[Out](opts...)
}

// RuntimeOnly lists the constraints on T that the derived schema cannot
// state, as "path: tag" (e.g. "code: startswith=SKU-"), sorted. They are
// still checked by [Args] and [Handler]; clients just cannot check them
// beforehand.
func RuntimeOnly[T any](opts ...Option) []string { return core.RuntimeOnly[T](opts...) }
