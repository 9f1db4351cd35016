package envelope

import (
	"slices"
	"time"

	"github.com/mcpguard/mcpguard/internal/safe"
)

// Sentinel errors, one per code except InternalError (an error nobody
// classified is internal by definition). Handlers wrap them with %w:
//
//	return nil, fmt.Errorf("card %s: %w", id, envelope.ErrNotFound)
//
// Any coded error also matches the sentinel of its code under [errors.Is], so
// errors.Is(envelope.New(envelope.NotFound, "no such card"), envelope.ErrNotFound)
// is true.
var (
	ErrAuthenticationFailed = &Error{code: AuthenticationFailed, msg: "authentication failed", sentinel: true}
	ErrAccessDenied         = &Error{code: AccessDenied, msg: "access denied", sentinel: true}
	ErrNotFound             = &Error{code: NotFound, msg: "not found", sentinel: true}
	ErrConfiguration        = &Error{code: ConfigurationError, msg: "server misconfigured", sentinel: true}
	ErrValidation           = &Error{code: ValidationError, msg: "invalid arguments", sentinel: true}
	ErrExecutionFailed      = &Error{code: ExecutionFailed, msg: "execution failed", sentinel: true}
)

// Error is an error with a [Code]. Build one with [New] or [Wrap]; its
// message is what the agent reads, after redaction, unless the code is
// InternalError, whose message never leaves the server.
type Error struct {
	code     Code
	msg      string
	err      error
	sentinel bool
}

// New returns an error with the given code and message. An invalid code is
// treated as InternalError, so a typo can never invent a new error type.
func New(code Code, message string) error {
	return &Error{code: normalize(code), msg: message}
}

// Wrap gives err a code, keeping err reachable through [errors.Is] and
// [errors.As]. Its message is err's. Wrap returns nil when err is nil.
func Wrap(code Code, err error) error {
	if err == nil {
		return nil
	}
	return &Error{code: normalize(code), err: err}
}

// Internal marks err as the server's own failure: internal_error, whatever
// err wraps, its message kept in the server's log under an incident ID and
// never sent. It takes precedence over mappings, mappers and the standard
// library rules, which read what an error wraps and cannot tell whose it
// is: a missing data directory wraps fs.ErrNotExist as a missing file the
// agent named does, and would tell the agent to verify an identifier it
// never gave.
//
//	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
//		return nil, envelope.Internal(err) // not the agent's not_found
//	}
//
// The error still matches what it wraps under [errors.Is] and [errors.As].
// Internal returns nil when err is nil.
func Internal(err error) error { return Wrap(InternalError, err) }

func normalize(c Code) Code {
	if c.Valid() {
		return c
	}
	return InternalError
}

// Code returns the error's code.
func (e *Error) Code() Code { return e.code }

// Error returns the message New was given, or the wrapped error's message.
func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	if e.err != nil {
		return e.err.Error()
	}
	return string(e.code)
}

// Unwrap returns the wrapped error, if any.
func (e *Error) Unwrap() error { return e.err }

// Is makes every coded error match the package sentinel of its code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.sentinel && t.code == e.code
}

// CodeOf returns the code of the first [Error] in err's chain, or
// InternalError when there is none. CodeOf(nil) returns the empty Code.
// It does not apply a [Middleware]'s mappings; see [Classify] for that.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := asError(err); ok {
		return e.code
	}
	return InternalError
}

// detail decorates an error with what an envelope carries besides its code.
// It is invisible to the error's message and chain.
type detail struct {
	err          error
	nextSteps    []string
	replaceSteps bool
	fields       []FieldError
	retryable    *bool
	retryAfter   time.Duration
}

func (d *detail) Error() string { return d.err.Error() }
func (d *detail) Unwrap() error { return d.err }

// AddNextSteps attaches next steps to err. They come before the code's
// defaults in the envelope; decorations further out come first. The error's
// message and chain are unchanged. It returns nil when err is nil.
func AddNextSteps(err error, steps ...string) error {
	if err == nil {
		return nil
	}
	return &detail{err: err, nextSteps: slices.Clone(steps)}
}

// ReplaceNextSteps attaches next steps to err that replace the code's
// defaults, for a tool whose situation the generic advice would mislead.
func ReplaceNextSteps(err error, steps ...string) error {
	if err == nil {
		return nil
	}
	return &detail{err: err, nextSteps: slices.Clone(steps), replaceSteps: true}
}

// AddFields attaches field-level validation details to err. They appear in
// the envelope's "fields" member.
func AddFields(err error, fields ...FieldError) error {
	if err == nil {
		return nil
	}
	return &detail{err: err, fields: slices.Clone(fields)}
}

// SetRetryable overrides the envelope's "retryable" member for err.
func SetRetryable(err error, retryable bool) error {
	if err == nil {
		return nil
	}
	return &detail{err: err, retryable: &retryable}
}

// SetRetryAfter tells the agent to wait d before repeating the call: the
// envelope's "retry_after_ms" member, rounded up to a whole millisecond. It
// does not make the error retryable by itself; combine it with
// [SetRetryable] or a retryable code. It returns nil when err is nil and
// err itself when d is not positive.
func SetRetryAfter(err error, d time.Duration) error {
	if err == nil || d <= 0 {
		return err
	}
	return &detail{err: err, retryAfter: d}
}

// RetryAfterOf returns the wait [SetRetryAfter] set on err, outermost
// first, or 0 when none did: how long a refused call should wait, for a
// layer that acts on it (core/limit holds such a call instead of
// answering it).
func RetryAfterOf(err error) time.Duration { return collect(err).retryAfter }

// details is what walking an error chain collects.
type details struct {
	nextSteps    []string
	replaceSteps bool
	fields       []FieldError
	retryable    *bool
	retryAfter   time.Duration
}

// collect gathers the decorations in err's whole tree, outermost first.
func collect(err error) details {
	var d details
	walkChain(err, func(e error) bool {
		dd, ok := e.(*detail)
		if !ok {
			return true
		}
		d.nextSteps = append(d.nextSteps, dd.nextSteps...)
		if dd.replaceSteps {
			d.replaceSteps = true
		}
		d.fields = append(d.fields, dd.fields...)
		if d.retryable == nil && dd.retryable != nil {
			d.retryable = dd.retryable
		}
		if d.retryAfter == 0 {
			d.retryAfter = dd.retryAfter
		}
		return true
	})
	return d
}

// maxChain bounds every walk of an error chain: a cyclic or absurd chain
// (an Unwrap that returns its own receiver) cannot hang a call.
const maxChain = 256

// walkChain calls visit for every error in err's tree, outermost first,
// following Unwrap() error and Unwrap() []error (errors.Join), until visit
// returns false or maxChain errors have been visited. Unwrap methods are
// user code: one that panics ends the walk there.
func walkChain(err error, visit func(error) bool) {
	budget := maxChain
	stop := false
	var walk func(error)
	walk = func(e error) {
		for e != nil && budget > 0 && !stop {
			budget--
			if !visit(e) {
				stop = true
				return
			}
			var next error
			var many []error
			kind := 0
			p := safe.Call(func() {
				switch u := e.(type) {
				case interface{ Unwrap() error }:
					next, kind = u.Unwrap(), 1
				case interface{ Unwrap() []error }:
					many, kind = u.Unwrap(), 2
				}
			})
			if p != nil {
				return
			}
			switch kind {
			case 1:
				e = next
			case 2:
				for _, x := range many {
					walk(x)
				}
				return
			default:
				return
			}
		}
	}
	walk(err)
}
