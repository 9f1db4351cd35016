package envelope

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Call is what a [Renderer] needs to know of the tool call that failed,
// whichever SDK received it.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Args are the call's arguments as received (json.RawMessage, a
	// decoded map, …): text the agent sent itself is not redacted as a
	// leak (see redact.Redactor.ForCall).
	Args any
	// Request is the SDK's own request value, handed to [StepsFunc]s so
	// that an SDK front can pass it on in its own types. May be nil.
	Request any
	// Shown says that without mcpguard the SDK would have sent the error's
	// text to the client as a tool result (go-sdk's typed handlers do). An
	// error nothing classifies then stays readable: its message, redacted,
	// classified by what it says as an error result's text is
	// ([ClassifyText]; execution_failed when it says nothing), rather than
	// internal_error with the message only in the log, so that adding the
	// layer never leaves the agent knowing less than before, and the text
	// reads as it does through mcpguard-proxy, which has only the text.
	// [WithUnclassified] still decides first.
	Shown bool
}

// Renderer is one configured envelope renderer: the classification, the
// default next steps, the redactor and the logger that every layer of a
// chain renders failures with, so that they cannot disagree. Each SDK front
// (the mcp-go envelope package, the gosdk module) wraps one in its own
// middleware. It is immutable and safe for concurrent use.
type Renderer struct {
	o *options
	// opts are the options o was evaluated from, for [Renderer.With].
	opts []Option
}

// NewRenderer returns a renderer configured by opts.
func NewRenderer(opts ...Option) *Renderer {
	return &Renderer{o: evaluate(opts), opts: slices.Clone(opts)}
}

// With returns a renderer configured as r and then by opts, which add to
// r's configuration instead of replacing it: a setting opts give (a
// logger, a redactor, the internal message, the unclassified code, tool
// failure _meta) replaces r's, default next steps replace r's for their
// code only, and mappings and mappers are tried after r's. Without opts it
// returns r. It is how a layer with envelope options of its own renders
// with the chain's configuration plus its own; [Overlay] keeps the result
// for the next call.
func (r *Renderer) With(opts ...Option) *Renderer {
	if len(opts) == 0 {
		return r
	}
	return NewRenderer(append(slices.Clip(r.opts), opts...)...)
}

// Error classifies err and renders it. A nil err renders as an internal
// error. A panic in code the renderer does not control (an error's own
// methods, a mapper, a next-steps function) makes the failure an internal
// error under a fresh incident rather than escaping. It never returns nil.
func (r *Renderer) Error(ctx context.Context, call Call, err error) *Envelope {
	if err == nil {
		err = errors.New("envelope: Error called with a nil error")
	}
	return r.o.guard(ctx, call, func() *Envelope { return r.o.fromError(ctx, call, err) })
}

// Text renders the text of an error result a handler built itself (e.g.
// mcp-go's NewToolResultError, go-sdk's SetError): an envelope in the text
// is untrusted (see [WithTrustedEnvelopes]); other text is classified by
// what it says, execution_failed unless it says better.
func (r *Renderer) Text(ctx context.Context, call Call, text string) *Envelope {
	return r.o.guard(ctx, call, func() *Envelope { return r.o.fromText(ctx, call, text) })
}

// Missing renders the failure of a handler that returned neither a result
// nor an error, which the SDKs would answer with a JSON-RPC error.
func (r *Renderer) Missing(ctx context.Context, call Call) *Envelope {
	return r.Error(ctx, call, New(InternalError, "tool handler returned neither a result nor an error"))
}

// Internal renders an internal_error envelope for an incident the caller
// has already logged.
func (r *Renderer) Internal(tool, incidentID string) *Envelope {
	return r.o.internal(tool, incidentID)
}

// Normalizes reports whether error results a handler built itself are
// rewritten as envelopes (the default; see [WithoutNormalization]).
func (r *Renderer) Normalizes() bool { return r.o.normalize }

// FailureMeta returns the value to set under [ToolFailureMetaKey] in the
// result's _meta, and true, when the renderer was built
// [WithToolFailureMeta].
func (r *Renderer) FailureMeta(env *Envelope) (map[string]any, bool) {
	if !r.o.failureMeta || env == nil {
		return nil, false
	}
	return failureMeta(env), true
}

// DefaultNextSteps returns the next steps the renderer appends for code,
// with an internal error's incident ID filled in.
func (r *Renderer) DefaultNextSteps(code Code, incidentID string) []string {
	src := r.o.defaultSteps(code)
	out := make([]string, len(src))
	for i, s := range src {
		out[i] = withIncident(s, code, incidentID)
	}
	return out
}

// Redactor returns the redactor the renderer applies to messages, steps
// and fields; layers that write client-visible text use the same one.
func (r *Renderer) Redactor() *redact.Redactor { return r.o.redactor }

// Logger returns the logger the renderer logs incidents to.
func (r *Renderer) Logger() *slog.Logger { return r.o.log() }

// withIncident names the incident in an internal error's default step.
func withIncident(step string, code Code, incidentID string) string {
	if incidentID == "" || code != InternalError {
		return step
	}
	return strings.ReplaceAll(step, "the incident_id", "incident "+incidentID)
}

// Panic describes a panic recovered in a tool call.
type Panic struct {
	// IncidentID is the ID the client receives and the log record carries.
	IncidentID string
	// Tool is the name of the tool whose call panicked.
	Tool string
	// Value is what was passed to panic. Never send it to a client.
	Value any
	// Stack is the goroutine's stack at the panic, when stacks are
	// captured. Never send it to a client.
	Stack []byte
}

// RecoverOptions configures [Renderer.Recovered].
type RecoverOptions struct {
	// Logger receives the record; nil means the renderer's logger.
	Logger *slog.Logger
	// Stack captures and logs the stack.
	Stack bool
	// OnPanic, when set, is called with every recovered panic (after it
	// is logged); a panic in it is logged and contained.
	OnPanic func(ctx context.Context, p Panic)
}

// Recovered logs a value recovered from a panic in a tool call under a
// fresh incident ID and returns the internal_error envelope naming it. The
// value and the stack go to the log only.
func (r *Renderer) Recovered(ctx context.Context, tool string, v any, o RecoverOptions) *Envelope {
	id := incident.New()
	p := Panic{IncidentID: id, Tool: tool, Value: v}
	if o.Stack || o.OnPanic != nil {
		p.Stack = debug.Stack()
	}
	attrs := []slog.Attr{
		slog.String(logkey.Tool, tool),
		slog.String(logkey.IncidentID, id),
		slog.String(logkey.Panic, safe.Value(v)),
		slog.String(logkey.PanicGoType, fmt.Sprintf("%T", v)),
	}
	if o.Stack {
		attrs = append(attrs, slog.String(logkey.Stack, string(p.Stack)))
	}
	logger := o.Logger
	if logger == nil {
		logger = r.o.log()
	}
	safe.Log(ctx, logger, slog.LevelError, "mcpguard: recovered panic in tool call", attrs...)
	if o.OnPanic != nil {
		hp := safe.Call(func() { o.OnPanic(ctx, p) })
		if hp != nil {
			safe.Log(ctx, logger, slog.LevelError, "mcpguard: WithOnPanic callback panicked",
				slog.String(logkey.IncidentID, id), slog.String(logkey.Panic, safe.Value(hp)))
		}
	}
	return r.Internal(tool, id)
}

// FallbackInternal is the envelope to send when even recovering failed
// (logging or rendering panicked): generic, retryable, with no incident.
func FallbackInternal() *Envelope {
	return &Envelope{
		ErrorType: InternalError,
		Message:   "The tool failed with an internal error. Its details could not be logged.",
		NextSteps: DefaultNextSteps(InternalError),
		Retryable: true,
	}
}
