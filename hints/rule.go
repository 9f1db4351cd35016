package hints

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
)

// Rule holds the hints of one tool. Build it with [For]; it is immutable
// and may be shared by several registries.
type Rule struct {
	tool  string
	hints []Hint
}

// Tool returns the name of the tool the rule is for.
func (r Rule) Tool() string { return r.tool }

// References returns the tools the rule's hints name: those of its [Call]
// steps and those declared with [Mentions], in order, without duplicates.
func (r Rule) References() []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range r.hints {
		for _, t := range h.refs() {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

type kind uint8

const (
	kindCode kind = iota + 1
	kindSentinel
	kindErrorFunc
	kindSuccess
	kindSuccessFunc
	kindReplace
	kindMentions
)

// Hint is one piece of a [Rule]: built by [OnError], [OnErrorIs],
// [OnErrorFunc], [OnSuccess], [OnSuccessFunc], [ReplaceDefaults] or
// [Mentions].
type Hint struct {
	kind       kind
	code       envelope.Code
	target     error
	targetCode envelope.Code
	steps      []Step
	errFn      ErrorFunc
	okFn       SuccessFunc
	mentions   []string
}

func (h Hint) refs() []string {
	var out []string
	for _, s := range h.steps {
		if s.tool != "" {
			out = append(out, s.tool)
		}
	}
	return append(out, h.mentions...)
}

// Failure describes a failed call to an [ErrorFunc].
type Failure struct {
	// Code is the error type the agent receives.
	Code envelope.Code
	// Err is the Go error the handler returned. It is nil when the failure
	// reached the hints layer as a result with isError: true, such as one
	// built with mcp.NewToolResultError.
	Err error
	// Message is the error's message before redaction.
	Message string
}

// ErrorFunc computes hints for a failed call. It gets the request's
// context and should honour its cancellation. It returns nil when it has
// nothing to add. It must not modify req.
type ErrorFunc func(ctx context.Context, req mcp.CallToolRequest, f Failure) []Step

// SuccessFunc computes hints for a successful call from the request and
// the result. It gets the request's context and should honour its
// cancellation. It returns nil when it has nothing to add. It must not
// modify req or res.
type SuccessFunc func(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) []Step

// For returns the rule for the named tool. It panics on an empty name and
// on a nil or zero Hint, so a mistake shows at startup.
func For(tool string, hints ...Hint) Rule {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		panic("hints: For needs a tool name")
	}
	for _, h := range hints {
		if h.kind == 0 {
			panic("hints: For(" + tool + ") got a zero Hint; build hints with OnError, OnErrorIs, OnSuccess and the like")
		}
	}
	return Rule{tool: tool, hints: append([]Hint(nil), hints...)}
}

// OnError adds steps to every failure of the tool whose error type is
// code, unless an [OnErrorIs] hint of the same rule matches the error: a
// sentinel is more specific than a code. The code is the one the agent
// receives, after the envelope layer's mappings. It panics on an invalid
// code or without steps.
func OnError(code envelope.Code, steps ...Step) Hint {
	if !code.Valid() {
		panic("hints: OnError with invalid code " + string(code))
	}
	return Hint{kind: kindCode, code: code, steps: checkSteps("OnError", steps)}
}

// OnErrorIs adds steps to every failure whose Go error matches target
// under [errors.Is]. When one matches, the rule's [OnError] hints are
// skipped for that call, so ErrSessionExpired can say "call
// shop_authenticate" while other authentication failures say something
// else. It panics on a nil target or without steps.
//
// A sentinel needs the Go error. The hints layer sees it wherever it sits
// relative to the envelope layer, as long as the error reaches the envelope
// layer as a Go error; an error the handler returned as a result
// (mcp.NewToolResultError) carries none, and only the envelope package's
// own sentinels, which stand for a code, can match it. The layer logs a
// warning, once per tool, when a sentinel hint could not be evaluated.
func OnErrorIs(target error, steps ...Step) Hint {
	if target == nil {
		panic("hints: OnErrorIs with a nil target")
	}
	return Hint{kind: kindSentinel, target: target, targetCode: sentinelCode(target), steps: checkSteps("OnErrorIs", steps)}
}

// sentinelCode returns the code that target stands for when it is one of
// envelope's sentinels, which match every error of their code.
func sentinelCode(target error) envelope.Code {
	for _, c := range envelope.Codes() {
		if errors.Is(envelope.New(c, ""), target) {
			return c
		}
	}
	return ""
}

// OnErrorFunc adds the steps fn computes for each failure of the tool. fn
// runs on every failure; a panic in it is recovered and logged, and the
// envelope goes out without its steps. It panics on a nil fn.
func OnErrorFunc(fn ErrorFunc) Hint {
	if fn == nil {
		panic("hints: OnErrorFunc with a nil function")
	}
	return Hint{kind: kindErrorFunc, errFn: fn}
}

// OnSuccess adds steps to every successful result of the tool. They appear
// as a last text content item, which the model reads, and under the
// result's _meta key [MetaKey], which programs read; the structured content
// is never touched, so an output schema stays satisfied. It panics without
// steps.
func OnSuccess(steps ...Step) Hint {
	return Hint{kind: kindSuccess, steps: checkSteps("OnSuccess", steps)}
}

// OnSuccessFunc adds the steps fn computes for each successful result, as
// [OnSuccess] does. A panic in fn is recovered and logged, and the result
// goes out without its steps. It panics on a nil fn.
func OnSuccessFunc(fn SuccessFunc) Hint {
	if fn == nil {
		panic("hints: OnSuccessFunc with a nil function")
	}
	return Hint{kind: kindSuccessFunc, okFn: fn}
}

// ReplaceDefaults drops the envelope's default next steps for the code
// from failures the rule's hints apply to, for a tool whose situation the
// generic advice would mislead. Failures no hint applies to keep the
// defaults, so next_steps is never left empty.
func ReplaceDefaults() Hint { return Hint{kind: kindReplace} }

// Mentions declares tools that the rule's functions ([OnErrorFunc],
// [OnSuccessFunc]) may name, so that [Check] covers them too.
func Mentions(tools ...string) Hint {
	var out []string
	for _, t := range tools {
		if t = strings.TrimSpace(t); t == "" {
			panic("hints: Mentions with an empty tool name")
		}
		out = append(out, t)
	}
	return Hint{kind: kindMentions, mentions: out}
}

func checkSteps(fn string, steps []Step) []Step {
	if len(steps) == 0 {
		panic("hints: " + fn + " needs at least one step")
	}
	for _, s := range steps {
		if s.text == "" {
			panic("hints: " + fn + " with an empty step")
		}
	}
	return append([]Step(nil), steps...)
}
