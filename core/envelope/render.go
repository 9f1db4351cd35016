package envelope

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
	"github.com/mcpguard/mcpguard/internal/str"
)

// guard renders a failure, containing a panic in code the layer does not
// control: an error's own Error, Is, As or Unwrap method, a mapper, a
// next-steps function. Such a panic makes the failure an internal error.
func (o *options) guard(ctx context.Context, call Call, render func() *Envelope) *Envelope {
	var env *Envelope
	p := safe.Call(func() { env = render() })
	if p == nil && env != nil {
		return env
	}
	id := incident.New()
	safe.Log(ctx, o.log(), slog.LevelError, "mcpguard: rendering a tool failure panicked",
		slog.String(logkey.Tool, call.Tool),
		slog.String(logkey.IncidentID, id),
		slog.String(logkey.Panic, safe.Value(p)))
	return o.internal(call.Tool, id)
}

func (o *options) fromError(ctx context.Context, call Call, err error) *Envelope {
	return o.render(ctx, call, err, err)
}

// render classifies and renders err. Steps functions see seen: the error as
// the handler returned it, or nil when the failure came as a result.
func (o *options) render(ctx context.Context, call Call, err, seen error) *Envelope {
	tool := call.Tool
	code, retryable, mapperPanic, textStep := o.classify(err, call.Shown)
	stepsErr := o.resolveSteps(ctx, call, code, err, seen)
	// What the agent sent itself (a path argument) is no leak.
	red := o.redactor.ForCall(call.Args)
	if code == InternalError {
		id := incident.New()
		attrs := []slog.Attr{
			slog.String(logkey.Tool, tool),
			slog.String(logkey.IncidentID, id),
			slog.String(logkey.Error, safe.Error(err)),
			slog.String(logkey.ErrorGoType, fmt.Sprintf("%T", withoutStepsFunc(err))),
		}
		msg := "mcpguard: tool failed with an unclassified error"
		if mapperPanic != nil {
			msg = "mcpguard: error mapper panicked"
			attrs = append(attrs, slog.String(logkey.Panic, safe.Value(mapperPanic)))
		}
		safe.Log(ctx, o.log(), slog.LevelError, msg, attrs...)
		env := o.internal(tool, id)
		env.NextSteps = o.nextSteps(red, collect(stepsErr), InternalError, id)
		return env
	}
	d := collect(stepsErr)
	if textStep != "" {
		// as classifiedText: in place of the code's built-in default
		// steps; an operator's own (WithDefaultNextSteps) still follow it
		d.nextSteps = append(d.nextSteps, textStep)
		if _, custom := o.steps[code]; !custom {
			d.replaceSteps = true
		}
	}
	if d.retryable != nil {
		retryable = *d.retryable
	}
	fields := d.fields
	if len(fields) == 0 && code == ValidationError {
		if f, ok := o.argumentError(err); ok {
			fields = []FieldError{f}
		}
	}
	env := &Envelope{
		ErrorType: code,
		Tool:      tool,
		Message:   message(red, safe.Error(err)),
		Retryable: retryable,
		NextSteps: o.nextSteps(red, d, code, ""),
		Fields:    redactFields(red, fields),
	}
	if d.retryAfter > 0 {
		env.RetryAfterMS = int64((d.retryAfter + time.Millisecond - 1) / time.Millisecond)
	}
	if isTimeout(err) && !d.replaceSteps {
		env.NextSteps = dedupe(append([]string{timeoutStep}, env.NextSteps...))
	}
	return env
}

const timeoutStep = "The call timed out or was cancelled before it finished; retry it, with a narrower request if it is a large one."

func (o *options) internal(tool, id string) *Envelope {
	msg := o.generic
	if msg == "" {
		msg = "The tool failed with an internal error. Its details were logged on the server."
	}
	return &Envelope{
		ErrorType:  InternalError,
		Tool:       tool,
		Message:    fmt.Sprintf("%s Incident ID: %s.", strings.TrimSpace(msg), id),
		Retryable:  true,
		IncidentID: id,
		NextSteps:  o.nextSteps(o.redactor, details{}, InternalError, id),
	}
}

// nextSteps orders next steps: the error's own, then the code's defaults
// (unless replaced), redacted and de-duplicated.
func (o *options) nextSteps(red *redact.Redactor, d details, code Code, incidentID string) []string {
	steps := make([]string, 0, len(d.nextSteps)+1)
	for _, s := range d.nextSteps {
		steps = append(steps, red.String(s))
	}
	if !d.replaceSteps {
		for _, s := range o.defaultSteps(code) {
			steps = append(steps, withIncident(s, code, incidentID))
		}
	}
	return dedupe(steps)
}

func redactFields(red *redact.Redactor, fs []FieldError) []FieldError {
	if len(fs) == 0 {
		return nil
	}
	out := make([]FieldError, len(fs))
	for i, f := range fs {
		f.Message = red.String(f.Message)
		f.Suggestion = red.String(f.Suggestion)
		f.Param = red.String(f.Param)
		f.Allowed = redactAll(red, f.Allowed)
		out[i] = f
	}
	return out
}

// redactAll returns ss redacted, as a copy only when something changed.
func redactAll(red *redact.Redactor, ss []string) []string {
	var out []string
	for i, s := range ss {
		r := red.String(s)
		if r != s && out == nil {
			out = append([]string(nil), ss...)
		}
		if out != nil {
			out[i] = r
		}
	}
	if out == nil {
		return ss
	}
	return out
}

func dedupe(steps []string) []string {
	out := steps[:0]
	seen := make(map[string]struct{}, len(steps))
	for _, s := range steps {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if _, ok := seen[s]; ok {
			continue
		}
		seen[s] = struct{}{}
		out = append(out, s)
	}
	return out
}

// MaxMessageBytes bounds an envelope's message, as the client receives
// it. A longer one, such as an error that quotes a whole request, is cut
// at a character boundary and marked " …(truncated)", the mark counted in
// the bound: the agent's context window is worth more than the tail of a
// message.
const MaxMessageBytes = 2048

// message redacts and bounds a client-visible message. The whole message is
// redacted before it is cut, so no secret is ever half-shown: a cut made
// first could leave a prefix that no rule recognises (redaction is linear
// in the message, which the handler, not the client, made).
func message(red *redact.Redactor, s string) string { return bounded(red, s, MaxMessageBytes) }

// bounded redacts s and bounds it to n bytes, the mark of a cut included:
// redaction first, so that no secret is ever half-shown. Bytes that are not UTF-8
// are counted as the U+FFFD that JSON encoding turns each of them into,
// so that the bound holds on the wire.
func bounded(red *redact.Redactor, s string, n int) string {
	return str.Clip(str.ValidUTF8(red.String(s)), n, " …(truncated)")
}
