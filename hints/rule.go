package hints

import (
	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/envelope"
)

// The vocabulary is core/hints' (SDK-neutral, generic over the request and
// result types), instantiated with mcp-go's: the names below are those
// instantiations, so rules written for this package are that package's.

// Rule holds the hints of one tool. Build it with [For]; it is immutable
// and may be shared by several registries. Its methods Tool and References
// return the tool the rule is for and the tools its hints name ([Call]
// steps and [Mentions]), in order, without duplicates.
type Rule = core.Rule[mcp.CallToolRequest, *mcp.CallToolResult]

// Hint is one piece of a [Rule]: built by [OnError], [OnErrorIs],
// [OnErrorFunc], [OnSuccess], [OnSuccessFunc], [ReplaceDefaults] or
// [Mentions].
type Hint = core.Hint[mcp.CallToolRequest, *mcp.CallToolResult]

// Failure describes a failed call to an [ErrorFunc]: Code is the error
// type the agent receives; Err the Go error the handler returned, nil when
// the failure reached the hints layer as a result with isError: true (such
// as one built with mcp.NewToolResultError); Message the error's message
// before redaction.
type Failure = core.Failure

// ErrorFunc computes hints for a failed call. It gets the request's
// context and should honour its cancellation. It returns nil when it has
// nothing to add. It must not modify req.
type ErrorFunc = core.ErrorFunc[mcp.CallToolRequest]

// SuccessFunc computes hints for a successful call from the request and
// the result. It gets the request's context and should honour its
// cancellation. It returns nil when it has nothing to add. It must not
// modify req or res.
type SuccessFunc = core.SuccessFunc[mcp.CallToolRequest, *mcp.CallToolResult]

// For returns the rule for the named tool. It panics on an empty name and
// on a nil or zero Hint, so a mistake shows at startup.
func For(tool string, hints ...Hint) Rule { return core.For(tool, hints...) }

// OnError adds steps to every failure of the tool whose error type is
// code, unless an [OnErrorIs] hint of the same rule matches the error: a
// sentinel is more specific than a code. The code is the one the agent
// receives, after the envelope layer's mappings. It panics on an invalid
// code or without steps.
func OnError(code envelope.Code, steps ...Step) Hint {
	return core.OnError[mcp.CallToolRequest, *mcp.CallToolResult](code, steps...)
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
	return core.OnErrorIs[mcp.CallToolRequest, *mcp.CallToolResult](target, steps...)
}

// OnErrorFunc adds the steps fn computes for each failure of the tool. fn
// runs on every failure; a panic in it is recovered and logged, and the
// envelope goes out without its steps. It panics on a nil fn.
func OnErrorFunc(fn ErrorFunc) Hint {
	return core.OnErrorFunc[mcp.CallToolRequest, *mcp.CallToolResult](fn)
}

// OnSuccess adds steps to every successful result of the tool. They appear
// as a last text content item, which the model reads, and under the
// result's _meta key [MetaKey], which programs read; the structured content
// is never touched, so an output schema stays satisfied. It panics without
// steps.
func OnSuccess(steps ...Step) Hint {
	return core.OnSuccess[mcp.CallToolRequest, *mcp.CallToolResult](steps...)
}

// OnSuccessFunc adds the steps fn computes for each successful result, as
// [OnSuccess] does. A panic in fn is recovered and logged, and the result
// goes out without its steps. It panics on a nil fn.
//
// On mcp-go, res.StructuredContent is the Go value the handler set
// (mcp.NewToolResultStructured keeps it), so fn may type-assert it. On
// go-sdk it is JSON by then; the gosdk front's OnSuccessOf decodes it.
func OnSuccessFunc(fn SuccessFunc) Hint { return core.OnSuccessFunc(fn) }

// ReplaceDefaults drops the envelope's default next steps for the code
// from failures the rule's hints apply to, for a tool whose situation the
// generic advice would mislead. Failures no hint applies to keep the
// defaults, so next_steps is never left empty.
func ReplaceDefaults() Hint {
	return core.ReplaceDefaults[mcp.CallToolRequest, *mcp.CallToolResult]()
}

// Mentions declares tools that the rule's functions ([OnErrorFunc],
// [OnSuccessFunc]) may name, so that [Check] covers them too.
func Mentions(tools ...string) Hint {
	return core.Mentions[mcp.CallToolRequest, *mcp.CallToolResult](tools...)
}
