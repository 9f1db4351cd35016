package envelope

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/internal/incident"
)

// ToolFailureMetaKey is the _meta key of the draft MCP proposal for
// structured tool failures, written with [WithToolFailureMeta].
const ToolFailureMetaKey = "io.modelcontextprotocol/toolFailure"

// result renders env. A hand-off result, rendered by a layer inside an
// envelope layer for that layer to finish, always carries env as its
// structured content: the in-process mark that it is mcpguard's own and
// trusted. The envelope layer then renders it for the wire, where a tool
// with an output schema gets the text alone.
func (o *options) result(ctx context.Context, env *Envelope, handoff bool) *mcp.CallToolResult {
	res := env.Result(ctx)
	if handoff {
		res.StructuredContent = env
	}
	if o.failureMeta {
		res.Meta = withFailureMeta(res.Meta, env)
	}
	return res
}

// withFailureMeta returns meta with the toolFailure member derived from env.
func withFailureMeta(meta *mcp.Meta, env *Envelope) *mcp.Meta {
	out := &mcp.Meta{}
	if meta != nil {
		out.ProgressToken = meta.ProgressToken
		out.AdditionalFields = make(map[string]any, len(meta.AdditionalFields)+1)
		for k, v := range meta.AdditionalFields {
			out.AdditionalFields[k] = v
		}
	} else {
		out.AdditionalFields = make(map[string]any, 1)
	}
	id := env.IncidentID
	if id == "" {
		id = incident.New()
	}
	failure := map[string]any{
		"class":         failureClass(env.ErrorType),
		"code":          string(env.ErrorType),
		"retryable":     env.Retryable,
		"correlationId": id,
		"agentGuidance": strings.Join(env.NextSteps, " "),
	}
	if env.RetryAfterMS > 0 {
		failure["retryNotBefore"] = time.Now().Add(time.Duration(env.RetryAfterMS) * time.Millisecond).UTC().Format(time.RFC3339Nano)
	}
	out.AdditionalFields[ToolFailureMetaKey] = failure
	return out
}

// failureClass maps a code onto the proposal's three classes: what the
// call asked for cannot be done (capability), something failed that may
// work later (reliability), or policy refused it (governance).
func failureClass(c Code) string {
	switch c {
	case AuthenticationFailed, AccessDenied:
		return "governance"
	case ValidationError, NotFound:
		return "capability"
	default:
		return "reliability"
	}
}

// fromResult normalizes a result that is nil or already marks an error.
func (o *options) fromResult(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *Envelope {
	tool := req.Params.Name
	if res == nil {
		return o.fromError(ctx, req, New(InternalError, "tool handler returned neither a result nor an error"))
	}
	if own, ok := res.StructuredContent.(*Envelope); ok && own != nil {
		// Rendered by a layer of ours further in: keep what it says.
		env := *own
		if env.Tool == "" {
			env.Tool = tool
		}
		return o.keepMeta(&env, res)
	}
	text, _ := splitText(res.Content)
	if env, ok := Parse(text); ok {
		return o.keepMeta(o.untrusted(ctx, req, env), res)
	}
	code, msg := guess(text)
	if msg == "" {
		msg = "The tool reported an error without a message."
	}
	var err error = New(code, msg)
	if fs := bindFields(msg); code == ValidationError && fs != nil {
		err = WithFields(err, fs...)
	}
	if code == InternalError {
		err = errors.New(msg) // logged in full under an incident ID
	}
	return o.keepMeta(o.render(ctx, req, err, nil), res)
}

// untrusted renders an envelope that a handler returned as text: it may be
// an upstream service's body passed on verbatim. Its code, message and
// fields are kept, redacted; its next steps and retryable member only with
// [WithTrustedEnvelopes]; an internal_error, whose incident ID nothing
// vouches for, gets a fresh incident and the generic message.
func (o *options) untrusted(ctx context.Context, req mcp.CallToolRequest, env *Envelope) *Envelope {
	if env.ErrorType == InternalError {
		return o.render(ctx, req, errors.New(env.Message), nil)
	}
	var err error = New(env.ErrorType, env.Message)
	if o.trustSteps {
		err = WithRetryable(WithNextSteps(err, env.NextSteps...), env.Retryable)
	}
	if len(env.Fields) > 0 {
		err = WithFields(err, env.Fields...)
	}
	out := o.render(ctx, req, err, nil)
	if env.Tool != "" && out.Tool == "" {
		out.Tool = env.Tool
	}
	return out
}

// keepMeta records what the rendered result must keep of the handler's:
// its _meta and its content besides the text. They travel with the
// envelope to the renderer through a side table-free carrier.
func (o *options) keepMeta(env *Envelope, res *mcp.CallToolResult) *Envelope {
	_, rest := splitText(res.Content)
	env.carry = carried{meta: res.Meta, rest: rest}
	return env
}

// splitText joins the text content items and returns the others.
func splitText(content []mcp.Content) (string, []mcp.Content) {
	var texts []string
	var rest []mcp.Content
	for _, c := range content {
		if t, ok := textOf(c); ok {
			texts = append(texts, t)
		} else {
			rest = append(rest, c)
		}
	}
	return strings.Join(texts, "\n"), rest
}
