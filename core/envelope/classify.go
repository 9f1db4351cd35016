package envelope

import (
	"context"
	"io/fs"
	"os"
	"reflect"

	"github.com/mcpguard/mcpguard/internal/safe"
)

// classify finds the code of err, reporting retryable when a timeout or
// cancellation makes the identical call worth repeating. The order is the
// one the package doc gives: the error's own code, mappers, mappings,
// standard library errors, timeouts, an SDK's argument errors
// ([WithArgumentErrors]), then the [WithUnclassified] code, then, for
// an error the client would have read (shown), what its text says, else
// internal_error. textStep is the next step of a code read off the text
// ([ClassifyText]), which stands in for the code's default steps.
func (o *options) classify(err error, shown bool) (code Code, retryable bool, mapperPanic any, textStep string) {
	if e, ok := asError(err); ok {
		return e.code, e.code.Retryable(), nil, ""
	}
	for _, m := range o.mappers {
		c, ok, p := callMapper(m, err)
		if p != nil {
			return InternalError, true, p, ""
		}
		if ok && c.Valid() {
			return c, c.Retryable(), nil, ""
		}
	}
	for _, m := range o.mappings {
		if isError(err, m.target) {
			return m.code, m.code.Retryable(), nil, ""
		}
	}
	// These read what err wraps, not whose it is: the server's own missing
	// file is not_found here too unless it was marked with Internal, which
	// the first test above catches.
	switch {
	case isError(err, fs.ErrNotExist):
		return NotFound, false, nil, ""
	case isError(err, fs.ErrPermission):
		return AccessDenied, false, nil, ""
	case isTimeout(err):
		return ExecutionFailed, true, nil, ""
	}
	if _, ok := o.argumentError(err); ok {
		return ValidationError, false, nil, ""
	}
	if o.unclassified != "" {
		return o.unclassified, o.unclassified.Retryable(), nil, ""
	}
	if shown {
		// Without mcpguard the client would have read this text as an
		// error result's: it is classified as one is ([ClassifyText],
		// never internal_error), so that it says what it can, and reads
		// the same as through mcpguard-proxy, which has only the text.
		if c, ok := ClassifyText(safe.Error(err)); ok {
			return c.Code, c.Retryable, nil, c.NextStep
		}
		return ExecutionFailed, ExecutionFailed.Retryable(), nil, ""
	}
	return InternalError, true, nil, ""
}

func callMapper(m func(error) (Code, bool), err error) (c Code, ok bool, p any) {
	p = safe.Call(func() { c, ok = m(err) })
	return c, ok, p
}

// isTimeout reports a deadline or cancellation anywhere in err's chain:
// the context errors, os.ErrDeadlineExceeded (what net.Conn deadlines
// return, golang/go#64449) and any error whose Timeout method says so, as
// net.Error's does.
func isTimeout(err error) bool {
	found := false
	walkChain(err, func(e error) bool {
		if e == context.DeadlineExceeded || e == context.Canceled || e == os.ErrDeadlineExceeded {
			found = true
		} else if t, ok := e.(interface{ Timeout() bool }); ok {
			_ = safe.Call(func() { found = t.Timeout() })
		}
		return !found
	})
	return found
}

// asError is errors.As for *Error over a bounded walk of the chain, so a
// cyclic Unwrap cannot hang a call.
func asError(err error) (*Error, bool) {
	var out *Error
	walkChain(err, func(e error) bool {
		if c, ok := e.(*Error); ok && c != nil {
			out = c
			return false
		}
		return true
	})
	return out, out != nil
}

// isError is errors.Is over a bounded walk of the chain: an error matches
// target when it is target (comparable errors only) or its Is method says
// so. A panicking Is method counts as no match.
func isError(err, target error) bool {
	if err == nil || target == nil {
		return err == target
	}
	comparable := reflect.TypeOf(target).Comparable()
	found := false
	walkChain(err, func(e error) bool {
		if comparable && reflect.TypeOf(e).Comparable() && e == target {
			found = true
			return false
		}
		if x, ok := e.(interface{ Is(error) bool }); ok {
			_ = safe.Call(func() { found = x.Is(target) })
		}
		return !found
	})
	return found
}

// argumentError reads err's chain with the [WithArgumentErrors] function:
// the first error whose own text it recognises gives the field. The
// decorations of this package repeat the text they wrap and are skipped.
func (o *options) argumentError(err error) (FieldError, bool) {
	if o.argErrors == nil {
		return FieldError{}, false
	}
	var f FieldError
	found := false
	walkChain(err, func(e error) bool {
		if _, ok := e.(*detail); ok {
			return true
		}
		if _, ok := e.(*lazySteps); ok {
			return true
		}
		_ = safe.Call(func() { f, found = o.argErrors(safe.Error(e)) })
		return !found
	})
	return f, found
}

// Is is errors.Is over a bounded walk of err's chain: at most 256 errors
// are visited, so an Unwrap that returns its own receiver (or any cycle)
// cannot hang the caller, and an Is or Unwrap method that panics ends the
// walk instead of the call. Layers use it on the errors handlers return.
func Is(err, target error) bool { return isError(err, target) }

// As is errors.As over the same bounded walk as [Is]: the first error in
// err's chain that is a T. (Errors' own As methods are not consulted.)
func As[T error](err error) (T, bool) {
	var out T
	found := false
	walkChain(err, func(e error) bool {
		if t, ok := e.(T); ok {
			out, found = t, true
		}
		return !found
	})
	return out, found
}
