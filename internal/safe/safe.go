// Package safe holds the defensive helpers every mcpguard layer uses to touch
// values it does not control: errors whose Error method panics, panic values
// of any type, and loggers whose handlers may themselves fail.
package safe

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpguard/mcpguard/internal/str"
)

// maxLen bounds what is logged of one value, so a runaway error message
// cannot flood the logs.
const maxLen = 64 << 10

// Error returns err.Error(), or a description of the failure when the Error
// method panics.
func Error(err error) string {
	s, _ := ErrorText(err)
	return s
}

// ErrorText is [Error], and whether the text is err.Error() itself: false
// when the method panicked or the text was cut to the bound.
func ErrorText(err error) (s string, whole bool) {
	if err == nil {
		return "<nil>", true
	}
	defer func() {
		if r := recover(); r != nil {
			s, whole = fmt.Sprintf("<%T: Error method panicked>", err), false
		}
	}()
	raw := err.Error()
	s = truncate(raw)
	return s, s == raw
}

// Value formats any value, typically a panic value, with %v; a String,
// Error or Format method that panics yields a description instead of a
// second panic.
func Value(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("<%T: formatting panicked>", v)
		}
	}()
	if v == nil {
		return "<nil>"
	}
	return truncate(fmt.Sprintf("%v", v))
}

// truncate bounds s to maxLen bytes, never splitting a character.
func truncate(s string) string { return str.Clip(s, maxLen, "…(truncated)") }

// Log writes one record and survives a handler that panics: logging must
// never turn a handled failure into a new one.
func Log(ctx context.Context, l *slog.Logger, level slog.Level, msg string, attrs ...slog.Attr) {
	if l == nil {
		return
	}
	defer func() { _ = recover() }()
	l.LogAttrs(ctx, level, msg, attrs...)
}

// Call runs fn and reports the value it panicked with, if it did. A
// panic(nil) is reported as a non-nil value so it is never mistaken for
// success.
func Call(fn func()) (panicked any) {
	done := false
	defer func() {
		if !done {
			panicked = recover()
			if panicked == nil {
				panicked = nilPanic{}
			}
		}
	}()
	fn()
	done = true
	return nil
}

type nilPanic struct{}

func (nilPanic) String() string { return "panic(nil) or runtime.Goexit" }
