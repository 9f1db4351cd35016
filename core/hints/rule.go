package hints

import (
	"context"
	"errors"
	"strings"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// Rule holds the hints of one tool, for an SDK whose tool calls are
// requests of type Req answered with results of type Res. Build it with
// [For]; it is immutable and may be shared by several registries.
type Rule[Req, Res any] struct {
	tool  string
	hints []Hint[Req, Res]
}

// Tool returns the name of the tool the rule is for.
func (r Rule[Req, Res]) Tool() string { return r.tool }

// References returns the tools the rule's hints name: those of its [Call]
// steps and those declared with [Mentions], in order, without duplicates.
func (r Rule[Req, Res]) References() []string {
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
type Hint[Req, Res any] struct {
	kind       kind
	code       envelope.Code
	target     error
	targetCode envelope.Code
	steps      []Step
	errFn      ErrorFunc[Req]
	okFn       SuccessFunc[Req, Res]
	okErrFn    CheckedSuccessFunc[Req, Res]
	mentions   []string
}

func (h Hint[Req, Res]) refs() []string {
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
	// a handler built itself from text.
	Err error
	// Message is the error's message before redaction.
	Message string
}

// ErrorFunc computes hints for a failed call. It gets the request's
// context and should honour its cancellation. It returns nil when it has
// nothing to add. It must not modify req.
type ErrorFunc[Req any] func(ctx context.Context, req Req, f Failure) []Step

// SuccessFunc computes hints for a successful call from the request and
// the result. It gets the request's context and should honour its
// cancellation. It returns nil when it has nothing to add. It must not
// modify req or res.
type SuccessFunc[Req, Res any] func(ctx context.Context, req Req, res Res) []Step

// CheckedSuccessFunc is a [SuccessFunc] that can say why it could not read
// a result: a non-nil error explains it (a structured content that does
// not decode into the type the function expects, say), and the steps are
// ignored.
type CheckedSuccessFunc[Req, Res any] func(ctx context.Context, req Req, res Res) ([]Step, error)

// For returns the rule for the named tool. It panics on an empty name and
// on a nil or zero Hint, so a mistake shows at startup.
func For[Req, Res any](tool string, hints ...Hint[Req, Res]) Rule[Req, Res] {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		panic("hints: For needs a tool name")
	}
	for _, h := range hints {
		if h.kind == 0 {
			panic("hints: For(" + tool + ") got a zero Hint; build hints with OnError, OnErrorIs, OnSuccess and the like")
		}
	}
	return Rule[Req, Res]{tool: tool, hints: append([]Hint[Req, Res](nil), hints...)}
}

// OnError adds steps to every failure of the tool whose error type is
// code, unless an [OnErrorIs] hint of the same rule matches the error: a
// sentinel is more specific than a code. The code is the one the agent
// receives, after the envelope layer's mappings. It panics on an invalid
// code or without steps.
func OnError[Req, Res any](code envelope.Code, steps ...Step) Hint[Req, Res] {
	if !code.Valid() {
		panic("hints: OnError with invalid code " + string(code))
	}
	return Hint[Req, Res]{kind: kindCode, code: code, steps: checkSteps("OnError", steps)}
}

// OnErrorIs adds steps to every failure whose Go error matches target
// under [errors.Is]. When one matches, the rule's [OnError] hints are
// skipped for that call. A failure that reached the layer as a result
// carries no Go error: only the envelope package's own sentinels, which
// stand for a code, can match it. It panics on a nil target or without
// steps.
func OnErrorIs[Req, Res any](target error, steps ...Step) Hint[Req, Res] {
	if target == nil {
		panic("hints: OnErrorIs with a nil target")
	}
	return Hint[Req, Res]{kind: kindSentinel, target: target, targetCode: sentinelCode(target), steps: checkSteps("OnErrorIs", steps)}
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
func OnErrorFunc[Req, Res any](fn ErrorFunc[Req]) Hint[Req, Res] {
	if fn == nil {
		panic("hints: OnErrorFunc with a nil function")
	}
	return Hint[Req, Res]{kind: kindErrorFunc, errFn: fn}
}

// OnSuccess adds steps to every successful result of the tool. The SDK's
// front puts them in the result as a last text content item, which the
// model reads, and under the result's _meta key [MetaKey], which programs
// read. It panics without steps.
func OnSuccess[Req, Res any](steps ...Step) Hint[Req, Res] {
	return Hint[Req, Res]{kind: kindSuccess, steps: checkSteps("OnSuccess", steps)}
}

// OnSuccessFunc adds the steps fn computes for each successful result, as
// [OnSuccess] does. A panic in fn is recovered and logged, and the result
// goes out without its steps. It panics on a nil fn.
func OnSuccessFunc[Req, Res any](fn SuccessFunc[Req, Res]) Hint[Req, Res] {
	if fn == nil {
		panic("hints: OnSuccessFunc with a nil function")
	}
	return Hint[Req, Res]{kind: kindSuccessFunc, okFn: fn}
}

// OnSuccessChecked adds the steps fn computes for each successful result,
// as [OnSuccessFunc] does. When fn returns an error, the result gets no
// steps from it, and the first such error of each tool is logged at debug
// level: it is how a front reports a function that cannot match the
// results its SDK hands it. A panic in fn is recovered and logged. It
// panics on a nil fn.
func OnSuccessChecked[Req, Res any](fn CheckedSuccessFunc[Req, Res]) Hint[Req, Res] {
	if fn == nil {
		panic("hints: OnSuccessChecked with a nil function")
	}
	return Hint[Req, Res]{kind: kindSuccessFunc, okErrFn: fn}
}

// ReplaceDefaults drops the envelope's default next steps for the code
// from failures the rule's hints apply to, for a tool whose situation the
// generic advice would mislead. Failures no hint applies to keep the
// defaults, so next_steps is never left empty.
func ReplaceDefaults[Req, Res any]() Hint[Req, Res] { return Hint[Req, Res]{kind: kindReplace} }

// Mentions declares tools that the rule's functions ([OnErrorFunc],
// [OnSuccessFunc]) may name, so that the tool-reference check
// ([CheckNames]) covers them too.
func Mentions[Req, Res any](tools ...string) Hint[Req, Res] {
	var out []string
	for _, t := range tools {
		if t = strings.TrimSpace(t); t == "" {
			panic("hints: Mentions with an empty tool name")
		}
		out = append(out, t)
	}
	return Hint[Req, Res]{kind: kindMentions, mentions: out}
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
