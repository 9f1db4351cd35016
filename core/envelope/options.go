package envelope

import (
	"log/slog"

	"github.com/mcpguard/mcpguard/core/redact"
)

// Option configures [Middleware] and [ErrorResult].
type Option func(*options)

type mapping struct {
	target error
	code   Code
}

type options struct {
	mappings     []mapping
	mappers      []func(error) (Code, bool)
	steps        map[Code][]string
	logger       *slog.Logger
	redactor     *redact.Redactor
	generic      string
	normalize    bool
	unclassified Code
	failureMeta  bool
	trustSteps   bool
	argErrors    func(text string) (FieldError, bool)
}

func evaluate(opts []Option) *options {
	o := &options{redactor: redact.Default(), normalize: true}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if o.redactor == nil {
		o.redactor = redact.New()
	}
	return o
}

// WithMapping maps every error that matches target under [errors.Is] to
// code, for sentinels the handler does not wrap itself:
//
//	envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)
//
// A code given by the error itself ([New], [Wrap]) wins over a mapping.
// Mappings are tried in the order given.
func WithMapping(target error, code Code) Option {
	if target == nil {
		panic("envelope: WithMapping with a nil target")
	}
	if !code.Valid() {
		panic("envelope: WithMapping with invalid code " + string(code))
	}
	return func(o *options) { o.mappings = append(o.mappings, mapping{target, code}) }
}

// WithMapper adds a function that classifies errors, for error types rather
// than values:
//
//	envelope.WithMapper(func(err error) (envelope.Code, bool) {
//		var pgErr *pgconn.PgError
//		if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
//			return envelope.ExecutionFailed, true
//		}
//		return "", false
//	})
//
// Mappers run after the error's own code and before [WithMapping]'s
// sentinels; the first that answers true with a valid code wins. A mapper
// that panics is recovered and the error is treated as internal.
func WithMapper(fn func(error) (Code, bool)) Option {
	if fn == nil {
		panic("envelope: WithMapper with a nil function")
	}
	return func(o *options) { o.mappers = append(o.mappers, fn) }
}

// WithDefaultNextSteps replaces the default next steps of a code for every
// tool behind this layer. Steps that errors carry still come first.
func WithDefaultNextSteps(code Code, steps ...string) Option {
	if !code.Valid() {
		panic("envelope: WithDefaultNextSteps with invalid code " + string(code))
	}
	return func(o *options) {
		if o.steps == nil {
			o.steps = map[Code][]string{}
		}
		o.steps[code] = append([]string(nil), steps...)
	}
}

// WithArgumentErrors recognises the errors an SDK's own argument helpers
// return, by their text: an error in a chain whose text fn recognises is a
// validation_error (after the mappings, the standard library's errors and
// timeouts, before [WithUnclassified]), and the field fn returns is the
// envelope's, unless the chain carries fields of its own ([AddFields]).
// fn sees each error of the chain once, its own text only; a panic in fn
// is no match. The mcp-go front sets it for mcp-go's Require* helpers; a
// later WithArgumentErrors replaces an earlier one, nil turns it off.
func WithArgumentErrors(fn func(text string) (FieldError, bool)) Option {
	return func(o *options) { o.argErrors = fn }
}

// WithLogger sets where internal errors are logged, with their full detail
// and incident ID. The default is [slog.Default] at the time of the call.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRedactor sets the redactor for messages and next steps. The default is
// [redact.Default]; redact.New() turns redaction off, which you should not.
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithInternalMessage replaces the generic message of internal errors. The
// incident ID is appended to it.
func WithInternalMessage(msg string) Option { return func(o *options) { o.generic = msg } }

// WithUnclassified sets the code of errors that nothing classifies (no
// code of their own, no mapper or mapping, no standard library, timeout or
// mcp-go argument error). The default, internal_error, sends a generic
// message and logs the detail under an incident ID: nothing leaves the
// server that its operator did not choose to expose. A server whose plain
// errors are written for the agent ("limit must be between 1 and 100")
// opts in with
//
//	envelope.WithUnclassified(envelope.ExecutionFailed)
//
// and the agent gets the redacted message instead. Panics stay
// internal_error whatever this says.
func WithUnclassified(code Code) Option {
	if !code.Valid() {
		panic("envelope: WithUnclassified with invalid code " + string(code))
	}
	return func(o *options) {
		o.unclassified = code
		if code == InternalError {
			o.unclassified = ""
		}
	}
}

// WithToolFailureMeta also puts the envelope under the result's _meta, as
// the draft MCP proposal for structured tool failures describes it
// ("io.modelcontextprotocol/toolFailure": class, code, retryable,
// correlationId, agentGuidance). It is derived from the same envelope as
// the text, so the two can never disagree. The proposal is a draft and may
// change; the text envelope is the stable contract.
func WithToolFailureMeta() Option { return func(o *options) { o.failureMeta = true } }

// WithTrustedEnvelopes keeps the next steps and retryable member of an
// envelope that a handler returned as text (mcp.NewToolResultError with a
// JSON body), for servers whose handlers write envelopes themselves. By
// default they are replaced by this layer's own: a tool that returns an
// upstream service's error body verbatim must not pass that service's
// advice ("call admin_create_token …") to the agent as the server's.
//
// It changes nothing else. Trusted or not, such an envelope's code,
// message and fields are kept, redacted, its message bounded like every
// message and its fields like this server's own ([MaxFieldErrors], then a
// "more" entry; each string bounded), and its incident_id,
// retry_after_ms and any toolFailure _meta of the handler's are not kept.
func WithTrustedEnvelopes() Option { return func(o *options) { o.trustSteps = true } }

// WithoutNormalization leaves results that a handler built with
// isError: true as they are, instead of rewriting them into envelopes.
func WithoutNormalization() Option { return func(o *options) { o.normalize = false } }

func (o *options) log() *slog.Logger {
	if o.logger != nil {
		return o.logger
	}
	return slog.Default()
}

func (o *options) defaultSteps(c Code) []string {
	if s, ok := o.steps[c]; ok {
		return s
	}
	return defaultSteps[c]
}
