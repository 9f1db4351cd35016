package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/redact"
)

// The hint vocabulary is core/hints' (SDK-neutral, generic over the request
// and result types), instantiated with go-sdk's, so that hint functions get
// a *mcp.CallToolRequest and a *mcp.CallToolResult. It is the vocabulary of
// the mcp-go front's hints package, with the same meaning: a rule written
// for one SDK reads the same for the other.

// Rule holds the hints of one tool. Build it with [For]; it is immutable
// and may be shared by several registries. Its methods Tool and References
// return the tool the rule is for and the tools its hints name ([Call]
// steps and [Mentions]).
type Rule = hints.Rule[*mcp.CallToolRequest, *mcp.CallToolResult]

// Hint is one piece of a [Rule]: built by [OnError], [OnErrorIs],
// [OnErrorFunc], [OnSuccess], [OnSuccessFunc], [OnSuccessOf],
// [ReplaceDefaults] or [Mentions].
type Hint = hints.Hint[*mcp.CallToolRequest, *mcp.CallToolResult]

// Step is one next step: a sentence that tells the agent what to do and,
// when it was built with [Call], the tool it names, which is what lets
// [CheckTools] prove that the tool exists.
type Step = hints.Step

// Failure describes a failed call to an [ErrorFunc]: Code is the error
// type the agent receives, Err the Go error the handler returned (nil when
// the failure reached the hints layer as a result the handler built from
// text), Message the error's message before redaction.
type Failure = hints.Failure

// ErrorFunc computes hints for a failed call. It gets the request's
// context and should honour its cancellation. It returns nil when it has
// nothing to add. It must not modify req.
type ErrorFunc = hints.ErrorFunc[*mcp.CallToolRequest]

// SuccessFunc computes hints for a successful call from the request and
// the result. It gets the request's context and should honour its
// cancellation. It returns nil when it has nothing to add. It must not
// modify req or res.
type SuccessFunc = hints.SuccessFunc[*mcp.CallToolRequest, *mcp.CallToolResult]

// ReferenceError reports a hint that names a tool the server does not
// have; [CheckTools] returns one per problem, joined with errors.Join.
type ReferenceError = hints.ReferenceError

// NextStepsMetaKey is the _meta key under which a successful result
// carries its next steps, as a JSON array of strings: the mcp-go front's
// hints.MetaKey.
const NextStepsMetaKey = hints.MetaKey

// For returns the rule for the named tool. It panics on an empty name and
// on a zero Hint, so a mistake shows at startup.
func For(tool string, hs ...Hint) Rule { return hints.For(tool, hs...) }

// OnError adds steps to every failure of the tool whose error type is
// code, unless an [OnErrorIs] hint of the same rule matches the error: a
// sentinel is more specific than a code. The code is the one the agent
// receives, after the [Middleware]'s mappings. It panics on an invalid code
// or without steps.
func OnError(code Code, steps ...Step) Hint {
	return hints.OnError[*mcp.CallToolRequest, *mcp.CallToolResult](code, steps...)
}

// OnErrorIs adds steps to every failure whose Go error matches target
// under errors.Is; when one matches, the rule's [OnError] hints are
// skipped. A handler's returned error keeps its sentinels (a low-level
// handler's (nil, err), a typed handler's err); a result the handler built
// from text carries none, and only this package's own sentinels
// ([ErrNotFound], …), which stand for a code, can match it. It panics on a
// nil target or without steps.
func OnErrorIs(target error, steps ...Step) Hint {
	return hints.OnErrorIs[*mcp.CallToolRequest, *mcp.CallToolResult](target, steps...)
}

// OnErrorFunc adds the steps fn computes for each failure of the tool. A
// panic in fn is recovered and logged, and the envelope goes out without
// its steps. It panics on a nil fn.
func OnErrorFunc(fn ErrorFunc) Hint {
	return hints.OnErrorFunc[*mcp.CallToolRequest, *mcp.CallToolResult](fn)
}

// OnSuccess adds steps to every successful result of the tool: as a last
// text content item, which the model reads, and under [NextStepsMetaKey]
// in _meta, which programs read. structuredContent is untouched, so an
// output schema stays satisfied. It panics without steps.
func OnSuccess(steps ...Step) Hint {
	return hints.OnSuccess[*mcp.CallToolRequest, *mcp.CallToolResult](steps...)
}

// OnSuccessFunc adds the steps fn computes for each successful result, as
// [OnSuccess] does. A panic in fn is recovered and logged, and the result
// goes out without its steps. It panics on a nil fn.
//
// Inside receiving middleware, res.StructuredContent is never the Go value
// a typed handler returned: go-sdk's mcp.AddTool and [AddTool] set it to
// its JSON, a json.RawMessage, so a type assertion on the tool's Out type
// never matches. Use [OnSuccessOf] to get Out decoded. When fn returns no
// step for a result whose structured content is JSON, the hints layer logs
// that pitfall once per tool, at debug level.
func OnSuccessFunc(fn SuccessFunc) Hint {
	if fn == nil {
		panic("gosdk: OnSuccessFunc with a nil function")
	}
	return hints.OnSuccessChecked(func(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) ([]Step, error) {
		steps := fn(ctx, req, res)
		if len(steps) == 0 && res != nil {
			if _, raw := res.StructuredContent.(json.RawMessage); raw {
				return nil, errRawStructured
			}
		}
		return steps, nil
	})
}

// errRawStructured explains an OnSuccessFunc that returned no steps for a
// result whose structured content is JSON.
var errRawStructured = errors.New("OnSuccessFunc returned no steps for a result whose structuredContent is a json.RawMessage, as go-sdk's typed tools set it: if it type-asserts the tool's output type, it can never match; use gosdk.OnSuccessOf to get the output decoded")

// SuccessFuncOf computes hints for a successful call from the request and
// the tool's output, decoded into Out. It gets the request's context and
// should honour its cancellation. It returns nil when it has nothing to
// add.
type SuccessFuncOf[Out any] func(ctx context.Context, req *mcp.CallToolRequest, out Out) []Step

// OnSuccessOf adds the steps fn computes from each successful result's
// structured content decoded into Out, the output type of the tool's
// typed handler (mcp.AddTool, [AddTool]), as [OnSuccess] does:
//
//	gosdk.For("shop_order", gosdk.OnSuccessOf(func(ctx context.Context, req *mcp.CallToolRequest, o Order) []gosdk.Step {
//		return []gosdk.Step{gosdk.Call("shop_track", "with id=%s to follow the delivery", o.ID)}
//	}))
//
// The structured content is JSON inside receiving middleware whoever set
// it (see [OnSuccessFunc]); a Go value of type Out or *Out, set by a
// low-level handler, is used as it is. A result without structured
// content, or whose content does not decode into Out, gets no steps, and
// the first such result of the tool is logged at debug level. A panic in
// fn is recovered and logged. It panics on a nil fn.
func OnSuccessOf[Out any](fn SuccessFuncOf[Out]) Hint {
	if fn == nil {
		panic("gosdk: OnSuccessOf with a nil function")
	}
	return hints.OnSuccessChecked(func(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) ([]Step, error) {
		out, err := outputOf[Out](res)
		if err != nil {
			return nil, err
		}
		return fn(ctx, req, out), nil
	})
}

// outputOf returns res's structured content as an Out.
func outputOf[Out any](res *mcp.CallToolResult) (Out, error) {
	var out Out
	switch sc := res.StructuredContent.(type) {
	case Out:
		return sc, nil
	case *Out:
		if sc != nil {
			return *sc, nil
		}
	case json.RawMessage:
		if err := json.Unmarshal(sc, &out); err != nil {
			return out, fmt.Errorf("its structuredContent does not decode into %s: %w", reflect.TypeFor[Out](), err)
		}
		return out, nil
	}
	return out, fmt.Errorf("its structuredContent is a %T, neither JSON nor a %s", res.StructuredContent, reflect.TypeFor[Out]())
}

// ReplaceDefaults drops the envelope's default next steps for the code
// from failures the rule's hints apply to. Failures no hint applies to
// keep the defaults, so next_steps is never left empty.
func ReplaceDefaults() Hint {
	return hints.ReplaceDefaults[*mcp.CallToolRequest, *mcp.CallToolResult]()
}

// Mentions declares tools that the rule's functions ([OnErrorFunc],
// [OnSuccessFunc]) may name, so that [CheckTools] covers them too.
func Mentions(tools ...string) Hint {
	return hints.Mentions[*mcp.CallToolRequest, *mcp.CallToolResult](tools...)
}

// Text returns a step that names no tool, such as "Ask the user which
// account to use." Prefer [Call] whenever the step is to call a tool.
func Text(s string) Step { return hints.Text(s) }

// Call returns the step "Call <tool> <why>." and records that it names
// tool; with args, why is a format:
//
//	gosdk.Call("execute_query", "with page=%d to continue", page+1)
//	// Call execute_query with page=3 to continue.
//
// It panics on an empty tool name; inside a hint function that panic is
// recovered and the step dropped.
func Call(tool, why string, args ...any) Step { return hints.Call(tool, why, args...) }

// HintOption configures a [HintRegistry].
type HintOption = hints.Option

// WithHintLogger sets where panics in hint functions and configuration
// warnings are logged. The default is slog.Default at the time of the
// call.
func WithHintLogger(l *slog.Logger) HintOption { return hints.WithLogger(l) }

// WithHintRedactor sets the redactor every hint's text goes through. The
// default is redact.Default; pass the [Middleware] the same one if you
// extend the rules.
func WithHintRedactor(r *redact.Redactor) HintOption { return hints.WithRedactor(r) }

// WithoutSuccessText leaves success hints out of the result's content, so
// they appear only under [NextStepsMetaKey] in _meta, for clients that
// show every text content item to a human.
func WithoutSuccessText() HintOption { return hints.WithoutSuccessText() }
