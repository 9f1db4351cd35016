package envelope

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Middleware turns every failure of the layers inside it into a tool result
// with isError: true that carries an [Envelope]:
//
//   - an error returned with a nil result is classified (its own code, then
//     [WithMapper] functions, then [WithMapping] sentinels, then timeouts,
//     else internal_error) and rendered;
//   - a result the handler built with isError: true, such as
//     mcp.NewToolResultError's, becomes an envelope whose message is its
//     text, execution_failed unless its text says better;
//   - a nil result with a nil error, which mcp-go would answer with a
//     JSON-RPC error, becomes an internal_error.
//
// Messages are redacted. Internal errors get a generic message and an
// incident ID; their detail goes to the logger. Successful results pass
// through untouched, without allocating.
//
// One error is passed through: mcp.URLElicitationRequiredError, which asks
// the client to open a URL and belongs to the protocol, not to the tool.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if err == nil {
				if res != nil && !res.IsError {
					return res, nil
				}
				return o.guard(ctx, req, func() *mcp.CallToolResult { return o.fromResult(ctx, req, res) }), nil
			}
			if o.isProtocolError(err) {
				return res, err
			}
			return o.guard(ctx, req, func() *mcp.CallToolResult { return o.fromError(ctx, req, err) }), nil
		}
	}
}

// ErrorResult renders err as an envelope result, exactly as [Middleware]
// with the same options would. Layers that answer by themselves, such as
// validation, use it so that they are safe without the envelope layer.
func ErrorResult(ctx context.Context, req mcp.CallToolRequest, err error, opts ...Option) *mcp.CallToolResult {
	o := evaluate(opts)
	if err == nil {
		err = errors.New("envelope: ErrorResult called with a nil error")
	}
	return o.guard(ctx, req, func() *mcp.CallToolResult { return o.fromError(ctx, req, err) })
}

// guard renders a failure, containing a panic in code the layer does not
// control: an error's own Error, Is, As or Unwrap method, a mapper, a
// next-steps function. Such a panic makes the failure an internal error.
func (o *options) guard(ctx context.Context, req mcp.CallToolRequest, render func() *mcp.CallToolResult) (res *mcp.CallToolResult) {
	p := safe.Call(func() { res = render() })
	if p == nil && res != nil {
		return res
	}
	id := incident.New()
	safe.Log(ctx, o.log(), slog.LevelError, "mcpguard: rendering a tool failure panicked",
		slog.String("tool", req.Params.Name),
		slog.String("incident_id", id),
		slog.String("panic", safe.Value(p)))
	return o.internal(req.Params.Name, id).Result(ctx)
}

// Internal renders an internal_error envelope for an incident that the
// caller has already logged, e.g. a recovered panic.
func Internal(ctx context.Context, tool, incidentID string, opts ...Option) *mcp.CallToolResult {
	o := evaluate(opts)
	return o.internal(tool, incidentID).Result(ctx)
}

func (o *options) isProtocolError(err error) (is bool) {
	// errors.As runs the error's own As and Unwrap methods; one that panics
	// makes this an ordinary failure, which guard then contains.
	_ = safe.Call(func() {
		var v mcp.URLElicitationRequiredError
		if errors.As(err, &v) {
			is = true
			return
		}
		var p *mcp.URLElicitationRequiredError
		is = errors.As(err, &p) && p != nil
	})
	return is
}

func (o *options) fromError(ctx context.Context, req mcp.CallToolRequest, err error) *mcp.CallToolResult {
	tool := req.Params.Name
	code, retryable, mapperPanic := o.classify(err)
	// Steps functions see the error as the handler returned it, with its code.
	stepsErr := o.resolveSteps(ctx, req, code, err)
	if code == InternalError {
		id := incident.New()
		attrs := []slog.Attr{
			slog.String("tool", tool),
			slog.String("incident_id", id),
			slog.String("error", safe.Error(err)),
			slog.String("error_go_type", fmt.Sprintf("%T", withoutStepsFunc(err))),
		}
		msg := "mcpguard: tool failed with an unclassified error"
		if mapperPanic != nil {
			msg = "mcpguard: error mapper panicked"
			attrs = append(attrs, slog.String("panic", safe.Value(mapperPanic)))
		}
		safe.Log(ctx, o.log(), slog.LevelError, msg, attrs...)
		env := o.internal(tool, id)
		env.NextSteps = o.nextSteps(collect(stepsErr), InternalError, id)
		return env.Result(ctx)
	}
	d := collect(stepsErr)
	if d.retryable != nil {
		retryable = *d.retryable
	}
	env := &Envelope{
		ErrorType: code,
		Tool:      tool,
		Message:   o.message(safe.Error(err)),
		Retryable: retryable,
		NextSteps: o.nextSteps(d, code, ""),
		Fields:    o.fields(d.fields),
	}
	if d.retryAfter > 0 {
		env.RetryAfterMS = int64((d.retryAfter + time.Millisecond - 1) / time.Millisecond)
	}
	if isTimeout(err) && !d.replaceSteps {
		env.NextSteps = dedupe(append([]string{timeoutStep}, env.NextSteps...))
	}
	return env.Result(ctx)
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
		NextSteps:  o.nextSteps(details{}, InternalError, id),
	}
}

// nextSteps orders next steps: the error's own, then the code's defaults
// (unless replaced), redacted and de-duplicated.
func (o *options) nextSteps(d details, code Code, incidentID string) []string {
	steps := make([]string, 0, len(d.nextSteps)+1)
	for _, s := range d.nextSteps {
		steps = append(steps, o.redactor.String(s))
	}
	if !d.replaceSteps {
		for _, s := range o.defaultSteps(code) {
			if incidentID != "" && code == InternalError {
				s = strings.ReplaceAll(s, "the incident_id", "incident "+incidentID)
			}
			steps = append(steps, s)
		}
	}
	return dedupe(steps)
}

func (o *options) fields(fs []FieldError) []FieldError {
	if len(fs) == 0 {
		return nil
	}
	out := make([]FieldError, len(fs))
	for i, f := range fs {
		f.Message = o.redactor.String(f.Message)
		f.Suggestion = o.redactor.String(f.Suggestion)
		out[i] = f
	}
	return out
}

// fromResult normalizes a result that is nil or already marks an error.
func (o *options) fromResult(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	tool := req.Params.Name
	if res == nil {
		return o.fromError(ctx, req, errors.New("tool handler returned neither a result nor an error"))
	}
	if !o.normalize {
		return res
	}
	var texts []string
	var rest []mcp.Content
	for _, c := range res.Content {
		if t, ok := textOf(c); ok {
			texts = append(texts, t)
		} else {
			rest = append(rest, c)
		}
	}
	text := strings.Join(texts, "\n")
	var env *Envelope
	if e, ok := Parse(text); ok {
		// Already an envelope, perhaps from a layer further in: keep what it
		// says, make sure of what this layer guarantees.
		env = e
		if env.Tool == "" {
			env.Tool = tool
		}
		if env.ErrorType == InternalError && env.IncidentID == "" {
			return o.fromError(ctx, req, errors.New(env.Message))
		}
		if env.ErrorType != InternalError {
			env.Message = o.message(env.Message)
		}
		for i := range env.NextSteps {
			env.NextSteps[i] = o.redactor.String(env.NextSteps[i])
		}
		env.Fields = o.fields(env.Fields)
	} else {
		code, msg := guess(text)
		if msg == "" {
			msg = "The tool reported an error without a message."
		}
		err := New(code, msg)
		if code == InternalError {
			return o.fromError(ctx, req, err)
		}
		env = &Envelope{
			ErrorType: code,
			Tool:      tool,
			Message:   o.message(msg),
			Retryable: code.Retryable(),
			NextSteps: o.nextSteps(details{}, code, ""),
		}
	}
	out := env.Result(ctx)
	out.Meta = res.Meta
	out.Content = append(out.Content, rest...)
	return out
}

func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
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

// MaxMessageBytes bounds an envelope's message. A longer one, such as an
// error that quotes a whole request, is cut at a character boundary: the
// agent's context window is worth more than the tail of a message.
const MaxMessageBytes = 2048

// message redacts and bounds a client-visible message. Redaction runs on at
// most a little more than is kept, so a huge message costs linear time in
// what is sent, not in what was returned.
func (o *options) message(s string) string {
	truncated := false
	if len(s) > 4*MaxMessageBytes {
		// Drop the last, possibly partial, word too: half a token would
		// escape the rules that recognise whole ones.
		s, truncated = cut(s, 4*MaxMessageBytes), true
		if i := strings.LastIndexAny(s, " \t\n"); i > 0 {
			s = s[:i]
		}
	}
	s = o.redactor.String(s)
	if len(s) > MaxMessageBytes {
		s, truncated = cut(s, MaxMessageBytes), true
	}
	if truncated {
		s += " …(truncated)"
	}
	return s
}

// cut returns at most n bytes of s, never splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
