package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Handler wraps h so that every record it receives is redacted first, with
// the same rules and the same secret-key matcher as the wire: the message,
// every string attribute, every error value, attributes inside groups,
// values produced by a [slog.LogValuer], and attributes added with
// WithAttrs. An attribute (or a group) whose key names a secret has its
// value masked whatever its type; true and false stay. Other values are
// redacted through their JSON encoding, as [slog.JSONHandler] would print
// them.
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
	switch {
	case v.Kind() == slog.KindGroup:
		if depth >= maxJSONDepth {
			return slog.String(a.Key, Placeholder)
		}
		group := v.Group()
		red := make([]slog.Attr, len(group))
		for i, g := range group {
			red[i] = h.attr(g, secret, depth+1)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case v.Kind() == slog.KindBool:
		return a
	case secret:
		if v.Kind() == slog.KindString && v.String() == "" {
			return a
		}
		return slog.String(a.Key, Placeholder)
	case v.Kind() == slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case v.Kind() == slog.KindAny:
		return slog.Attr{Key: a.Key, Value: h.anyValue(v.Any())}
	}
	return a // numbers, times, durations: nothing to redact
}

// anyValue redacts a value the wrapped handler would encode itself. It
// may print it as JSON (slog.JSONHandler) or with %+v (slog.TextHandler,
// which calls String methods that JSON ignores, as *url.URL's does with its
// password), so both forms are checked and a redacted one is sent.
func (h *handler) anyValue(x any) slog.Value {
	switch v := x.(type) {
	case nil:
		return slog.AnyValue(nil)
	case error:
		return slog.StringValue(h.r.String(safe.Error(v)))
	case []byte:
		return slog.StringValue(h.r.Text(string(v)))
	case map[string]any, []any:
		out, _ := h.r.value(v, false, 0)
		return slog.AnyValue(out)
	}
	if b, err := safeMarshal(x); err == nil {
		if out, changed := h.r.RawJSON(b); changed {
			return slog.AnyValue(out)
		}
	}
	text := safe.Value(x)
	if red := h.r.String(text); red != text {
		return slog.StringValue(red)
	}
	return slog.AnyValue(x)
}

// safeMarshal encodes v; a panicking MarshalJSON is an error, not a crash
// of the log call.
func safeMarshal(v any) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("redact: marshal panicked")
		}
	}()
	return json.Marshal(v)
}
