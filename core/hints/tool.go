package hints

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
	"github.com/mcpguard/mcpguard/internal/str"
)

// MetaKey is the _meta key under which a successful result carries its
// next steps, as a JSON array of strings. It follows the MCP spec's _meta
// naming rules: a reverse-DNS prefix the project controls (the second
// label is neither "modelcontextprotocol" nor "mcp", so it is not
// reserved), a slash, and a name.
const MetaKey = "io.github.mcpguard/next_steps"

// Tool is the compiled rule set of one tool, as [Registry.Lookup] returns
// it: it computes the tool's steps for a failure or a success, redacted,
// trimmed, bounded and de-duplicated. What to do with them on the wire is
// the SDK front's business.
type Tool[Req, Res any] struct {
	name     string
	o        *options
	request  func(envelope.Call) Req
	refs     *references
	errs     []hint[Req, Res]
	oks      []hint[Req, Res]
	replace  bool
	sentinel bool // some OnErrorIs target is not an envelope sentinel

	// okStatic is set when every success hint is static: the steps and the
	// text content item are then computed once.
	okStatic bool
	okSteps  []string
	okText   string

	warnOnce sync.Once
	// unreadOnce logs the first error of an OnSuccessChecked function.
	unreadOnce sync.Once
}

// hint is a Hint with its static steps redacted once.
type hint[Req, Res any] struct {
	Hint[Req, Res]
	texts []string
}

func (t *Tool[Req, Res]) add(hs []Hint[Req, Res]) {
	for _, h := range hs {
		c := hint[Req, Res]{Hint: h}
		for _, s := range h.steps {
			c.texts = append(c.texts, t.o.redactor.String(s.text))
		}
		switch h.kind {
		case kindCode, kindSentinel, kindErrorFunc:
			t.errs = append(t.errs, c)
			if h.kind == kindSentinel && h.targetCode == "" {
				t.sentinel = true
			}
		case kindSuccess, kindSuccessFunc:
			t.oks = append(t.oks, c)
		case kindReplace:
			t.replace = true
		}
	}
}

func (t *Tool[Req, Res]) finish() {
	t.okStatic = len(t.oks) > 0
	for _, h := range t.oks {
		if h.kind != kindSuccess {
			t.okStatic = false
		}
	}
	if t.okStatic {
		var steps []string
		for _, h := range t.oks {
			steps = append(steps, h.texts...)
		}
		t.okSteps = dedupe(steps)
		t.okText = SuccessText(t.okSteps)
	}
}

// Name returns the tool's name.
func (t *Tool[Req, Res]) Name() string { return t.name }

// HasSuccessHints reports whether the tool has [OnSuccess] or
// [OnSuccessFunc] hints.
func (t *Tool[Req, Res]) HasSuccessHints() bool { return len(t.oks) > 0 }

func (t *Tool[Req, Res]) requestOf(call envelope.Call) Req {
	if req, ok := call.Request.(Req); ok {
		return req
	}
	var zero Req
	if t.request == nil {
		return zero
	}
	return t.request(call)
}

// envelopeSteps is the [envelope.StepsFunc] of the tool: the envelope
// renderer calls it with the Go error and the code it classified it as.
func (t *Tool[Req, Res]) envelopeSteps(ctx context.Context, req Req, code envelope.Code, err error) ([]string, bool) {
	if text, ok := err.(envelope.ResultText); ok {
		// A failure that arrived as a result: no Go error, its text.
		return t.ErrorSteps(ctx, req, Failure{Code: code, Message: string(text)})
	}
	msg := ""
	if err != nil {
		msg = safe.Error(err)
	}
	return t.ErrorSteps(ctx, req, Failure{Code: code, Err: err, Message: msg})
}

// ErrorSteps returns the tool's steps for a failure, redacted and
// de-duplicated, and whether they replace the code's defaults.
func (t *Tool[Req, Res]) ErrorSteps(ctx context.Context, req Req, f Failure) ([]string, bool) {
	matched := false
	for i := range t.errs {
		if h := &t.errs[i]; h.kind == kindSentinel && t.matches(ctx, h, f) {
			matched = true
			break
		}
	}
	var out []string
	for i := range t.errs {
		h := &t.errs[i]
		switch h.kind {
		case kindSentinel:
			if t.matches(ctx, h, f) {
				out = t.appendTexts(out, h)
			}
		case kindCode:
			if !matched && h.code == f.Code {
				out = t.appendTexts(out, h)
			}
		case kindErrorFunc:
			var steps []Step
			p := safe.Call(func() { steps = h.errFn(ctx, req, f) })
			if p != nil {
				t.panicked(ctx, "OnErrorFunc", p)
				continue
			}
			out = t.appendSteps(out, steps)
		}
	}
	if f.Err == nil && t.sentinel {
		t.warnOnce.Do(func() {
			safe.Log(ctx, t.o.log(), slog.LevelWarn,
				"mcpguard/hints: a failure reached the hints layer as a result, not as a Go error, so OnErrorIs hints keyed on the tool's own sentinels could not be evaluated; return the error as a Go error and keep an envelope layer in the chain",
				slog.String(logkey.Tool, t.name))
		})
	}
	out = dedupe(out)
	return out, t.replace && len(out) > 0
}

// matches reports whether a sentinel hint applies to f. envelope's own
// sentinels stand for their code, whatever made the error that code; other
// sentinels need the Go error.
func (t *Tool[Req, Res]) matches(ctx context.Context, h *hint[Req, Res], f Failure) bool {
	if h.targetCode != "" && h.targetCode == f.Code {
		return true
	}
	if f.Err == nil {
		return false
	}
	var ok bool
	// Is calls the chain's Is methods, which are user code; its walk is
	// bounded, so a cyclic chain cannot hang the call.
	p := safe.Call(func() { ok = envelope.Is(f.Err, h.target) })
	if p != nil {
		t.panicked(ctx, "OnErrorIs", p)
		return false
	}
	return ok
}

// Merge puts the tool's steps for the failure env describes first in its
// next_steps, dropping the renderer's defaults for its code when the rule
// says [ReplaceDefaults], and names the tool when env does not. It is for
// an envelope that was rendered without the tool's steps (a handler's own
// error result), so the failure has no Go error. It reports whether env
// changed.
func (t *Tool[Req, Res]) Merge(ctx context.Context, req Req, env *envelope.Envelope, r *envelope.Renderer) bool {
	steps, replace := t.ErrorSteps(ctx, req, Failure{Code: env.ErrorType, Message: env.Message})
	if len(steps) == 0 {
		return false
	}
	existing := env.NextSteps
	if replace {
		existing = dropDefaults(existing, r.DefaultNextSteps(env.ErrorType, env.IncidentID))
	}
	env.NextSteps = dedupe(append(steps, existing...))
	if env.Tool == "" {
		env.Tool = t.name
	}
	return true
}

// Success returns the tool's steps for a successful result, and the text
// content item that lists them, or nil and "" when no hint applies.
func (t *Tool[Req, Res]) Success(ctx context.Context, req Req, res Res) (steps []string, text string) {
	if t.okStatic && t.refs.clean() {
		return t.okSteps, t.okText
	}
	var out []string
	for i := range t.oks {
		h := &t.oks[i]
		if h.kind == kindSuccess {
			out = t.appendTexts(out, h)
			continue
		}
		ss, ok := t.successFunc(ctx, h, req, res)
		if ok {
			out = t.appendSteps(out, ss)
		}
	}
	if steps = dedupe(out); len(steps) == 0 {
		return nil, ""
	}
	return steps, SuccessText(steps)
}

// appendTexts appends h's static steps, redacted, but for those naming a
// tool the server does not have (see [Registry.CheckOnce]).
func (t *Tool[Req, Res]) appendTexts(out []string, h *hint[Req, Res]) []string {
	if t.refs.clean() {
		return append(out, h.texts...)
	}
	for i, s := range h.steps {
		if !t.refs.drops(s.tool) {
			out = append(out, h.texts[i])
		}
	}
	return out
}

// successFunc runs a success hint's function, recovering a panic and
// logging the first error of a checked one; ok is false when it gave no
// usable steps.
func (t *Tool[Req, Res]) successFunc(ctx context.Context, h *hint[Req, Res], req Req, res Res) (steps []Step, ok bool) {
	var err error
	p := safe.Call(func() {
		if h.okFn != nil {
			steps = h.okFn(ctx, req, res)
		} else {
			steps, err = h.okErrFn(ctx, req, res)
		}
	})
	if p != nil {
		t.panicked(ctx, "OnSuccessFunc", p)
		return nil, false
	}
	if err != nil {
		t.unreadOnce.Do(func() {
			safe.Log(ctx, t.o.log(), slog.LevelDebug,
				"mcpguard/hints: a success hint function could not read the tool's result and added no steps (logged once per tool)",
				slog.String(logkey.Tool, t.name),
				slog.String(logkey.Error, safe.Error(err)))
		})
		return nil, false
	}
	return steps, true
}

func (t *Tool[Req, Res]) appendSteps(out []string, steps []Step) []string {
	for _, s := range steps {
		text := s.text
		if text == "" || t.refs.drops(s.tool) {
			continue
		}
		// Cut far beyond maxStepLen before redacting, so that redaction
		// stays cheap and still sees whole any secret in what is kept.
		if len(text) > 4*maxStepLen {
			text = strings.ToValidUTF8(text[:4*maxStepLen], "")
		}
		out = append(out, t.o.redactor.String(text))
	}
	return out
}

func (t *Tool[Req, Res]) panicked(ctx context.Context, where string, p any) {
	safe.Log(ctx, t.o.log(), slog.LevelError, "mcpguard/hints: hint function panicked; the result goes out without its steps",
		slog.String(logkey.Tool, t.name),
		slog.String(logkey.Hint, where),
		slog.String(logkey.Panic, safe.Value(p)),
		slog.String(logkey.PanicGoType, fmt.Sprintf("%T", p)))
}

// SuccessText is the text content item that lists success steps.
func SuccessText(steps []string) string {
	var b strings.Builder
	b.WriteString("Next steps:")
	for _, s := range steps {
		b.WriteString("\n- ")
		b.WriteString(s)
	}
	return b.String()
}

// MetaSteps returns the steps to set under [MetaKey] in a result's _meta:
// steps, then those prev (the value already there, if any: a []string or
// a decoded []any) holds, de-duplicated. steps is not modified.
func MetaSteps(steps []string, prev any) []string {
	merged := slices.Clone(steps)
	switch prev := prev.(type) {
	case []string:
		merged = append(merged, prev...)
	case []any:
		for _, p := range prev {
			if s, ok := p.(string); ok {
				merged = append(merged, s)
			}
		}
	}
	return dedupe(merged)
}

// dropDefaults removes the renderer's default steps from steps.
func dropDefaults(steps, defaults []string) []string {
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		if !slices.Contains(defaults, strings.TrimSpace(s)) {
			out = append(out, s)
		}
	}
	return out
}

// Bounds on what one call's hints can add, so a runaway hint function
// cannot flood the agent's context or make de-duplication quadratic.
const (
	maxSteps   = 32
	maxStepLen = 2000
)

// dedupe trims steps, truncates long ones, and drops empty and repeated
// ones, keeping the first maxSteps. It reuses steps' backing array.
func dedupe(steps []string) []string {
	out := steps[:0]
	for _, s := range steps {
		if len(out) == maxSteps {
			break
		}
		s = strings.TrimSpace(s)
		s = str.Clip(s, maxStepLen, "…")
		if s == "" || slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}
