package envelope_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

func TestCodesAreTheClosedSeven(t *testing.T) {
	t.Parallel()
	want := []envelope.Code{"authentication_failed", "access_denied", "not_found", "configuration_error",
		"validation_error", "execution_failed", "internal_error"}
	assert.Equal(t, want, envelope.Codes())
	envelope.Codes()[0] = "teapot"
	assert.Equal(t, want, envelope.Codes(), "Codes returns a copy")
	for _, c := range want {
		assert.True(t, c.Valid(), c)
		assert.Equal(t, string(c), c.String())
		assert.Equal(t, c == envelope.InternalError, c.Retryable(), "only internal errors are retryable by default: %s", c)
	}
	for _, bad := range []envelope.Code{"", "teapot", "NOT_FOUND", "not_found "} {
		assert.False(t, bad.Valid(), "%q", bad)
	}
}

func TestCodeTextRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range envelope.Codes() {
		b, err := c.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, string(c), string(b))
		var back envelope.Code
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, c, back)
	}
	_, err := envelope.Code("INVALID_ARGUMENT").MarshalText()
	assert.ErrorContains(t, err, "INVALID_ARGUMENT")
	c := envelope.NotFound
	assert.ErrorContains(t, c.UnmarshalText([]byte("nope")), "nope")
	assert.Equal(t, envelope.NotFound, c, "a refused value leaves the code as it was")
}

func TestDefaultNextSteps(t *testing.T) {
	t.Parallel()
	seen := map[string]envelope.Code{}
	for _, c := range envelope.Codes() {
		steps := envelope.DefaultNextSteps(c)
		require.Len(t, steps, 1, c)
		assert.NotContains(t, strings.ToLower(steps[0]), "try again", "a next step must say more than try again")
		if other, dup := seen[steps[0]]; dup {
			t.Errorf("%s and %s share a default step", c, other)
		}
		seen[steps[0]] = c
		steps[0] = "changed"
		assert.NotEqual(t, "changed", envelope.DefaultNextSteps(c)[0], "a fresh copy each time")
	}
	assert.Equal(t, envelope.DefaultNextSteps(envelope.InternalError), envelope.DefaultNextSteps("teapot"),
		"an unknown code gets the internal error's step")
	assert.Contains(t, envelope.DefaultNextSteps(envelope.NotFound)[0], "Verify the identifier")
}

func TestNewAndWrap(t *testing.T) {
	t.Parallel()
	base := errors.New("disk quota")
	w := envelope.Wrap(envelope.ExecutionFailed, base)
	assert.ErrorIs(t, w, base)
	assert.ErrorIs(t, w, envelope.ErrExecutionFailed, "a coded error matches its code's sentinel")
	assert.NotErrorIs(t, w, envelope.ErrNotFound)
	assert.NotErrorIs(t, w, envelope.New(envelope.ExecutionFailed, "other"), "only sentinels match by code")
	assert.Equal(t, "disk quota", w.Error())
	assert.Same(t, base, errors.Unwrap(w))

	coded, ok := envelope.As[*envelope.Error](fmt.Errorf("outer: %w", w))
	require.True(t, ok)
	assert.Equal(t, envelope.ExecutionFailed, coded.Code())

	assert.NoError(t, envelope.Wrap(envelope.NotFound, nil))
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(envelope.New("bogus", "x")), "an invalid code never invents a new type")
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(envelope.Wrap("bogus", base)))
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(envelope.Wrap(envelope.NotFound, base)))
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(fmt.Errorf("a: %w", envelope.New(envelope.NotFound, "no card"))))
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(errors.New("plain")))
	assert.Equal(t, envelope.Code(""), envelope.CodeOf(nil))
	assert.ErrorIs(t, envelope.New(envelope.NotFound, "no card"), envelope.ErrNotFound)
	assert.Equal(t, "no card", envelope.New(envelope.NotFound, "no card").Error())
	assert.Equal(t, "not_found", envelope.New(envelope.NotFound, "").Error(), "an empty message says the code")
	assert.NoError(t, errors.Unwrap(envelope.New(envelope.NotFound, "x")))
}

func TestSentinels(t *testing.T) {
	t.Parallel()
	for sentinel, code := range map[error]envelope.Code{
		envelope.ErrAuthenticationFailed: envelope.AuthenticationFailed,
		envelope.ErrAccessDenied:         envelope.AccessDenied,
		envelope.ErrNotFound:             envelope.NotFound,
		envelope.ErrConfiguration:        envelope.ConfigurationError,
		envelope.ErrValidation:           envelope.ValidationError,
		envelope.ErrExecutionFailed:      envelope.ExecutionFailed,
	} {
		assert.Equal(t, code, envelope.CodeOf(fmt.Errorf("x: %w", sentinel)))
		assert.True(t, envelope.Is(envelope.New(code, "m"), sentinel), code)
		assert.ErrorIs(t, envelope.New(code, "m"), sentinel, code)
	}
	assert.False(t, envelope.ErrNotFound.Is(envelope.ErrAccessDenied))
}

// Every walk of an error chain visits at most 256 errors.
func TestChainWalkBound(t *testing.T) {
	t.Parallel()
	wrap := func(err error, n int) error {
		for range n {
			err = fmt.Errorf("w: %w", err)
		}
		return err
	}
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(wrap(envelope.ErrNotFound, 255)), "the 256th error is visited")
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(wrap(envelope.ErrNotFound, 256)), "the 257th is not")
	base := errors.New("base")
	assert.True(t, envelope.Is(wrap(base, 255), base))
	assert.False(t, envelope.Is(wrap(base, 256), base))
	_, ok := envelope.As[*envelope.Error](wrap(envelope.ErrNotFound, 256))
	assert.False(t, ok)
}

// cyclic is an error whose Unwrap returns itself.
type cyclic struct{}

func (c *cyclic) Error() string { return "cyclic" }
func (c *cyclic) Unwrap() error { return c }

// hostile is an error whose every method panics.
type hostile struct{}

func (hostile) Error() string { panic("Error") }
func (hostile) Is(error) bool { panic("Is") }
func (hostile) As(any) bool   { panic("As") }
func (hostile) Unwrap() error { panic("Unwrap") }

// uncomparable is an error type that == would panic on.
type uncomparable []string

func (u uncomparable) Error() string { return strings.Join(u, ",") }

func TestIsAndAsAreBoundedAndContained(t *testing.T) {
	t.Parallel()
	target := errors.New("target")
	assert.False(t, envelope.Is(fmt.Errorf("w: %w", &cyclic{}), target), "a cycle ends")
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(&cyclic{}))
	assert.False(t, envelope.Is(hostile{}, target), "a panicking Is is no match")
	assert.True(t, envelope.Is(errors.Join(hostile{}, target), target), "a panicking Unwrap ends only its branch")
	assert.True(t, envelope.Is(nil, nil))
	assert.False(t, envelope.Is(nil, target))
	assert.False(t, envelope.Is(target, nil))
	assert.True(t, envelope.Is(fmt.Errorf("w: %w", target), target))
	assert.False(t, envelope.Is(errors.New("target"), target), "errors are compared by identity")

	u := uncomparable{"a"}
	assert.False(t, envelope.Is(fmt.Errorf("w: %w", u), uncomparable{"a"}), "uncomparable values never match by ==")
	assert.False(t, envelope.Is(u, target))

	got, ok := envelope.As[uncomparable](fmt.Errorf("w: %w", u))
	require.True(t, ok)
	assert.Equal(t, u, got)
	_, ok = envelope.As[*cyclic](errors.New("plain"))
	assert.False(t, ok)
	var nilCoded *envelope.Error
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(fmt.Errorf("w: %w", nilCoded)), "a typed nil *Error has no code")
}

func TestDecorationsOfNilAndNothing(t *testing.T) {
	t.Parallel()
	assert.NoError(t, envelope.AddNextSteps(nil, "x"))
	assert.NoError(t, envelope.ReplaceNextSteps(nil, "x"))
	assert.NoError(t, envelope.AddFields(nil))
	assert.NoError(t, envelope.SetRetryable(nil, true))
	assert.NoError(t, envelope.SetRetryAfter(nil, time.Second))
	plain := errors.New("x")
	assert.Same(t, plain, envelope.SetRetryAfter(plain, 0))
	assert.Same(t, plain, envelope.SetRetryAfter(plain, -time.Second))
	assert.NotSame(t, plain, envelope.SetRetryAfter(plain, time.Nanosecond))

	// Decorations are invisible to the message and the chain.
	for _, d := range []error{
		envelope.AddNextSteps(plain, "s"), envelope.ReplaceNextSteps(plain, "s"),
		envelope.AddFields(plain, envelope.FieldError{Field: "f"}), envelope.SetRetryable(plain, true),
		envelope.SetRetryAfter(plain, time.Second),
	} {
		assert.Equal(t, "x", d.Error())
		assert.Same(t, plain, errors.Unwrap(d))
	}
}

func TestRetryAfterOfReadsTheOutermostWait(t *testing.T) {
	inner := envelope.SetRetryAfter(envelope.New(envelope.ExecutionFailed, "busy"), time.Second)
	outer := envelope.SetRetryAfter(fmt.Errorf("rate: %w", inner), 2*time.Second)
	for _, c := range []struct {
		err  error
		want time.Duration
	}{
		{nil, 0},
		{errors.New("plain"), 0},
		{inner, time.Second},
		{fmt.Errorf("wrapped: %w", inner), time.Second},
		{outer, 2 * time.Second},
		{errors.Join(errors.New("other"), inner), time.Second},
	} {
		if got := envelope.RetryAfterOf(c.err); got != c.want {
			t.Errorf("RetryAfterOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
