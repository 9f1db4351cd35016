package redact

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Handler wraps h so that every record it receives is redacted first, with
// the same rules and the same secret-key matcher as the wire: the message,
// every string attribute, every error value, attributes inside groups,
// values produced by a [slog.LogValuer], and attributes added with
// WithAttrs. An attribute (or a group) whose key names a secret has its
// value masked whatever its type; true and false stay. Other values are
// redacted in every form a handler prints them: their JSON encoding (as
// [slog.JSONHandler] prints them), their MarshalText or %+v (as
// [slog.TextHandler] and the default handler do, which shows json:"-"
// and unexported struct fields by name) and their %v; an error is printed
// as its redacted Error text, never its %+v (which prints a stack trace
// for some error packages).
//
// Choose per handler: a local log kept on the machine can keep full detail
// (incident records with stacks and secrets, tied to the incident ID); a
// log shipped off-box goes through Handler. Options are those of
// a redaction middleware: [WithRedactor], [WithRules], [WithoutRules]. The record's
// PC is passed on, so a wrapped handler with AddSource still prints the
// caller's file and line: leave AddSource off for a shipped log whose
// readers must not learn the source layout.
func Handler(h slog.Handler, opts ...Option) slog.Handler {
	if h == nil {
		panic("redact: Handler needs a handler to wrap")
	}
	return &handler{next: h, r: evaluate(opts).redactor}
}

type handler struct {
	next   slog.Handler
	r      *Redactor
	secret bool // inside a group whose name names a secret
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a, h.secret, 0))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a, h.secret, 0)
	}
	return &handler{next: h.next.WithAttrs(red), r: h.r, secret: h.secret}
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &handler{next: h.next.WithGroup(h.r.String(name)), r: h.r, secret: h.secret || leak.IsSecretKey(name)}
}

// attr redacts one attribute; secret says an enclosing key named a secret.
func (h *handler) attr(a slog.Attr, secret bool, depth int) slog.Attr {
	a.Value = a.Value.Resolve()
	secret = secret || leak.IsSecretKey(a.Key)
	a.Key = h.r.String(a.Key)
	v := a.Value
	if v.Kind() == slog.KindGroup {
		return h.group(a.Key, v.Group(), secret, depth)
	}
	if v.Kind() == slog.KindBool || secret && v.Kind() == slog.KindString && v.String() == "" {
		return a // true, false and "" tell nothing even under a secret key
	}
	if secret {
		return slog.String(a.Key, Placeholder)
	}
	if v.Kind() == slog.KindString {
		return slog.String(a.Key, h.r.String(v.String()))
	}
	if v.Kind() == slog.KindAny {
		return slog.Attr{Key: a.Key, Value: h.anyValue(v.Any())}
	}
	return a // numbers, times, durations: nothing to redact
}

// group redacts the attributes of a group; one nested past the JSON depth
// bound is masked whole.
func (h *handler) group(key string, attrs []slog.Attr, secret bool, depth int) slog.Attr {
	if depth >= maxJSONDepth {
		return slog.String(key, Placeholder)
	}
	red := make([]slog.Attr, len(attrs))
	for i, g := range attrs {
		red[i] = h.attr(g, secret, depth+1)
	}
	return slog.Attr{Key: key, Value: slog.GroupValue(red...)}
}

// anyValue redacts a value the wrapped handler encodes itself, in each
// form a handler may print it: slog.JSONHandler encodes it as JSON (which
// leaves out json:"-" and unexported fields); slog.TextHandler and the
// default handler print its MarshalText, or its %+v (which shows every
// field by name, and calls String methods that JSON ignores, as
// *url.URL's does with its password); other handlers may use %v. When
// either form needs redacting, the handler gets a [printed] value that
// carries both forms redacted. An error is printed as its redacted Error
// text, whatever its %+v would add (a stack trace, for some).
func (h *handler) anyValue(x any) slog.Value {
	if x == nil {
		return slog.AnyValue(nil)
	}
	if err, ok := x.(error); ok {
		return slog.StringValue(h.r.String(safe.Error(err)))
	}
	text, isBytes, textFailed := textForm(x)
	redText := h.r.Text(text)
	if isBytes {
		// JSON would show the bytes as base64, which hides nothing from a
		// reader: both forms become the redacted text.
		if redText == text {
			return slog.AnyValue(x)
		}
		return slog.StringValue(redText)
	}
	p := printed{text: redText}
	b, panicked, err := safeMarshal(x)
	jsonChanged := err != nil // the handler must not call the failing method again
	if panicked != "" {
		// What slog.JSONHandler prints for a panicking MarshalJSON, redacted.
		p.json, _ = json.Marshal(h.r.String(panicked))
	} else if err == nil {
		p.json, jsonChanged = h.r.RawJSON(b)
	}
	if !textFailed && !jsonChanged && redText == text {
		return slog.AnyValue(x)
	}
	return slog.AnyValue(p)
}

// textForm returns what slog.TextHandler prints for x: its MarshalText, a
// byte slice as text (isBytes), or its %+v. fmt survives a panicking
// String or Format method; for a MarshalText that fails or panics it is
// what slog prints then ("!ERROR:…", "!PANIC: …"), and failed says the
// handler must not be handed x, whose method would fail again unredacted.
func textForm(x any) (text string, isBytes, failed bool) {
	if tm, ok := x.(encoding.TextMarshaler); ok {
		text, failed = marshalText(tm)
		return text, false, failed
	}
	if t := reflect.TypeOf(x); t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return string(reflect.ValueOf(x).Bytes()), true, false
	}
	return fmt.Sprintf("%+v", x), false, false
}

func marshalText(tm encoding.TextMarshaler) (s string, failed bool) {
	defer func() {
		if p := recover(); p != nil {
			s, failed = "!PANIC: "+safe.Value(p), true
		}
	}()
	b, err := tm.MarshalText()
	if err != nil {
		return "!ERROR:" + safe.Error(err), true
	}
	return string(b), false
}

// printed is a value redacted in each form a handler may print: JSON for
// a JSON encoder (nil when the value has none), text for MarshalText (as
// slog.TextHandler and the default handler read it) and for fmt's verbs.
type printed struct {
	json json.RawMessage
	text string
}

// MarshalJSON returns the redacted JSON form, or the text form as a JSON
// string for a value that had no JSON form.
func (p printed) MarshalJSON() ([]byte, error) {
	if p.json == nil {
		return json.Marshal(p.text)
	}
	return p.json, nil
}

// MarshalText returns the redacted text form.
func (p printed) MarshalText() ([]byte, error) { return []byte(p.text), nil }

// String returns the redacted text form, for %v and %+v.
func (p printed) String() string { return p.text }

// GoString returns the redacted text form, for %#v.
func (p printed) GoString() string { return p.text }

// safeMarshal encodes v; a panicking MarshalJSON is an error, not a crash
// of the log call, and panicked is what slog.JSONHandler would print for
// it: "!PANIC: " and the panic value, which may hold anything.
func safeMarshal(v any) (b []byte, panicked string, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked, err = "!PANIC: "+safe.Value(p), fmt.Errorf("redact: marshal panicked")
		}
	}()
	b, err = json.Marshal(v)
	return b, "", err
}
