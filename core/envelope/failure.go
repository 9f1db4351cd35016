package envelope

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/internal/incident"
)

// ToolFailureMetaKey is the _meta key under which [WithToolFailureMeta]
// repeats the envelope in the shape of the draft MCP tool-failure proposal
// (modelcontextprotocol PR #3312): class, code, retryable, correlationId,
// agentGuidance and, when the envelope says how long to wait,
// retryNotBefore.
const ToolFailureMetaKey = "io.modelcontextprotocol/toolFailure"

// failureMeta returns the value for [ToolFailureMetaKey], derived from env.
func failureMeta(env *Envelope) map[string]any {
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
	return failure
}

// failureClass maps a code to the draft proposal's three classes: who can
// fix it (governance: credentials and permissions; capability: the call
// itself; reliability: the server or its dependencies).
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

// fromText makes an envelope of the text of an error result a handler
// built itself. A text that already is an envelope is untrusted (see
// [WithTrustedEnvelopes]); any other text is classified by what it says.
func (o *options) fromText(ctx context.Context, call Call, text string) *Envelope {
	if env, ok := Parse(text); ok {
		return o.untrusted(ctx, call, env)
	}
	code, msg, known := guess(text)
	if msg == "" {
		msg = "The tool reported an error without a message."
	}
	var err error = New(code, msg)
	if !known {
		if c, ok := ClassifyText(msg); ok {
			err = o.classifiedText(c, msg)
		}
	}
	if fs := bindFields(msg); code == ValidationError && fs != nil {
		err = AddFields(err, fs...)
	}
	if code == InternalError {
		err = errors.New(msg) // logged in full under an incident ID
	}
	return o.render(ctx, call, err, ResultText(msg))
}

// classifiedText is the error of a text [ClassifyText] read as c: its code
// and retryable, and its next step in place of the code's built-in default
// (an operator's [WithDefaultNextSteps] still follow it).
func (o *options) classifiedText(c TextClass, msg string) error {
	err := SetRetryable(New(c.Code, msg), c.Retryable)
	if c.NextStep == "" {
		return err
	}
	if _, custom := o.steps[c.Code]; custom {
		return AddNextSteps(err, c.NextStep)
	}
	return ReplaceNextSteps(err, c.NextStep)
}

// untrusted re-renders an envelope found in a handler's text. Its code,
// message and fields are kept, redacted again, the fields capped and
// bounded as this server's own are (boundFields), trusted or not; its
// next_steps and retryable are the handler's word, kept only with
// [WithTrustedEnvelopes], since text an upstream service or a user wrote
// could otherwise steer the agent. An internal_error gets a fresh incident
// of this server's.
func (o *options) untrusted(ctx context.Context, call Call, env *Envelope) *Envelope {
	if env.ErrorType == InternalError {
		return o.render(ctx, call, errors.New(env.Message), ResultText(env.Message))
	}
	var err error = New(env.ErrorType, env.Message)
	if o.trustSteps {
		err = SetRetryable(AddNextSteps(err, env.NextSteps...), env.Retryable)
	}
	if len(env.Fields) > 0 {
		err = AddFields(err, boundFields(o.redactor.ForCall(call.Args), env.Fields)...)
	}
	out := o.render(ctx, call, err, ResultText(env.Message))
	if env.Tool != "" && out.Tool == "" {
		out.Tool = env.Tool
	}
	return out
}
