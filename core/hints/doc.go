// Package hints is the SDK-neutral half of mcpguard's per-tool next steps:
// the rule vocabulary ([For], [OnError], [OnErrorIs], [OnErrorFunc],
// [OnSuccess], [OnSuccessFunc], [ReplaceDefaults], [Mentions], [Call],
// [Text]) and its evaluation. It imports no MCP SDK: it is generic over the
// SDK's request type Req and result type Res, which appear only in the
// signatures of hint functions ([ErrorFunc], [SuccessFunc]).
//
// Users do not import it. Each SDK's front instantiates it with its own
// types and adds what depends on them:
//
//   - github.com/mcpguard/mcpguard/hints, for mark3labs/mcp-go:
//     type Rule = hints.Rule[mcp.CallToolRequest, *mcp.CallToolResult];
//   - github.com/mcpguard/mcpguard/gosdk, for modelcontextprotocol/go-sdk:
//     type Rule = hints.Rule[*mcp.CallToolRequest, *mcp.CallToolResult].
//
// # What lives here, and what in a front
//
// Here: the rules, their compilation into a [Registry] (a lookup that does
// not allocate for a tool without a rule), the order of a failure's steps
// (a sentinel's hints before, and instead of, a code's; functions' steps;
// redaction, trimming, the bounds of 32 steps of 2,000 bytes, no
// duplicates), the precomputed steps and text of static success hints,
// recovery and logging of panicking hint functions, and the check that
// every tool a hint names exists ([CheckNames]; [Registry.CheckOnce] makes
// it once against the server's tools a front hands it, and drops steps
// naming a missing tool from then on).
//
// Error steps reach the envelope through the core's renderer
// (github.com/mcpguard/mcpguard/core/envelope): [Tool.Watch] installs the
// tool's [envelope.StepsFunc] in the context passed to the next handler, so
// that whichever renderer further in classifies the error puts the steps
// first; [Watch.Attach] hangs the same function on a Go error for a
// renderer further out; [Tool.Merge] adds them to an envelope rendered
// without them. The function gets the SDK's own request back from
// envelope.Call.Request.
//
// What a success's steps change in a result is decided here too, once for
// both fronts: [MergeSuccess] returns the result's content with a last text
// item listing them ([SuccessText]; not with [WithoutSuccessText]) and its
// _meta fields with the steps under [MetaKey], ahead of a handler's own
// ([MetaSteps]), leaving both inputs untouched.
//
// In a front: how a call's tool is named, which results are failures, how
// its SDK spells a text content item and a result's _meta (MergeSuccess
// takes and returns them), and the middleware that installs it all.
package hints
