package safe_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/safe"
)

// A runaway error message or panic value is cut to its bound without
// splitting a character: byte 64 KiB falls inside a two-byte é here.
func TestLongValuesAreCutBetweenCharacters(t *testing.T) {
	t.Parallel()
	long := "x" + strings.Repeat("é", 64<<10)
	for name, got := range map[string]string{
		"Error": safe.Error(errors.New(long)),
		"Value": safe.Value(long),
	} {
		if !utf8.ValidString(got) {
			t.Errorf("%s: the cut split a character: …%q", name, got[len(got)-20:])
		}
		if !strings.HasSuffix(got, "…(truncated)") || len(got) > 64<<10+len("…(truncated)") {
			t.Errorf("%s: %d bytes, not bounded and marked", name, len(got))
		}
	}
}

// ErrorText says whether its text is the error's own: not when the text
// was cut, whatever its length after the cut, nor when Error panicked.
func TestErrorTextSaysWhetherTheTextIsWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		err   error
		whole bool
	}{
		{"short", errors.New("connection refused"), true},
		{"nil", nil, true},
		{"long", errors.New(strings.Repeat("x", 64<<10+len("…(truncated)"))), false},
		{"panicking", panicking{}, false},
	} {
		s, whole := safe.ErrorText(tc.err)
		if whole != tc.whole || s != safe.Error(tc.err) {
			t.Errorf("%s: whole %v, want %v (text %d bytes)", tc.name, whole, tc.whole, len(s))
		}
	}
}

type panicking struct{}

func (panicking) Error() string { panic("no") }
