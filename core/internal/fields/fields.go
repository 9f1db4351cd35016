package fields

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/str"
)

// Defaults for the arguments both checks read, chosen so that any
// argument object a tool can sensibly take passes, and so that what does
// not costs linear time to refuse.
const (
	// DefaultMaxDepth bounds the nesting of objects and arrays.
	DefaultMaxDepth = 32
	// DefaultMaxBytes bounds the size of the arguments' JSON text.
	DefaultMaxBytes = 1 << 20
)

// Bounds on one field error's text, in bytes.
const (
	MaxPathBytes    = 160
	MaxMessageBytes = 400
)

// Fail is a validation_error listing fields, and one more entry counting
// the more violations left out.
func Fail(fields []envelope.FieldError, more int) error {
	for i := range fields {
		// Paths repeat the agent's keys, up to 64 characters a level:
		// deep ones are cut, so that each entry stays small.
		fields[i].Field = Clip(fields[i].Field, MaxPathBytes)
		fields[i].Message = Clip(fields[i].Message, MaxMessageBytes)
	}
	msg := summary(fields, len(fields)+more)
	if more > 0 {
		fields = append(fields, envelope.MoreFields(more))
	}
	return envelope.AddFields(envelope.New(envelope.ValidationError, msg), fields...)
}

// summary is the envelope's message: the first few field messages, of
// total violations.
func summary(fields []envelope.FieldError, total int) string {
	const shown = 3
	var b strings.Builder
	if total == 1 {
		b.WriteString("Invalid argument: ")
	} else {
		fmt.Fprintf(&b, "%d invalid arguments: ", total)
	}
	for i, f := range fields {
		if i == shown {
			fmt.Fprintf(&b, "; and %d more (see fields)", total-shown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Message)
	}
	b.WriteByte('.')
	return b.String()
}

// Clip shortens s to at most n bytes, never splitting a character,
// marking the cut with "…".
func Clip(s string, n int) string { return str.Clip(s, n, "…") }

// PathKey is path followed by the member key, redacted and shortened.
func PathKey(path, key string) string {
	var b strings.Builder
	b.WriteString(path)
	WriteKey(&b, redact.String(Clip(key, 64)))
	return b.String()
}

// WriteKey appends a map key to a JSON path: .key when it is a plain
// identifier, ["key"] otherwise. A long key is shortened: paths are for
// pointing, not for echoing input.
func WriteKey(b *strings.Builder, key string) {
	if isIdent(key) && len(key) <= 64 {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
		return
	}
	b.WriteByte('[')
	b.WriteString(strconv.Quote(Clip(key, 64)))
	b.WriteByte(']')
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' || i > 0 && c == '-') {
			return false
		}
	}
	return true
}

// OrArgs names the value at path: the path, or "the arguments" at the top.
func OrArgs(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

// UnknownMessage says that the member name, under the object at path, is
// not one the tool takes: an argument at the top, a member further down.
func UnknownMessage(path, name string) string {
	if path == "" {
		return name + " is not an argument of this tool"
	}
	return name + " is not a member of " + path
}

// Verb is the verb a count of unit takes: a string is "at most 5
// characters", a list "has at most 5 items".
func Verb(unit string) string {
	if unit == "characters" {
		return "be"
	}
	return "have"
}

// Preview renders a short, redacted form of a scalar value: enough for
// the agent to recognise what it sent, never a way to read back a long or
// secret input. Strings are redacted whole before they are cut, so a cut
// cannot split a secret into a prefix the redactor no longer recognises.
// red is the chain's redactor for this call: its rules, what it keeps of
// the agent's own arguments.
func Preview(v any, red *redact.Redactor) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(Clip(red.String(x), 32))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, bool:
		return fmt.Sprint(x)
	case float32, float64:
		return Clip(fmt.Sprint(x), 32)
	}
	return ""
}
