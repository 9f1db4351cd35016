// Package envelope gives every tool failure one machine-readable shape, so
// that an agent can branch on what went wrong and knows what to do next.
//
// # The problem
//
// A Go handler that returns (nil, err) produces a JSON-RPC error (mcp-go,
// go-sdk's low-level handlers) or raw error text (go-sdk's typed handlers).
// Hosts treat a JSON-RPC error as a transport fault and the model never
// sees it, so the agent stalls; raw text leaks what it holds. MCP wants tool failures inside a normal result with isError: true,
// and agents want more than an English sentence there.
//
// # The taxonomy
//
// Seven codes, closed like connect-go's: there are no user-defined codes, so
// an agent that understands these seven understands every server.
//
//	authentication_failed  re-authenticate
//	access_denied          do not retry; ask for access
//	not_found              verify the identifier
//	configuration_error    report to the operator
//	validation_error       fix the arguments
//	execution_failed       the tool ran; its work failed
//	internal_error         unexpected; logged under an incident ID
//
// Handlers say which one applies by wrapping a sentinel with %w, by building
// a coded error with [New] or [Wrap], or not at all: [WithMapping] and
// [WithMapper] teach the layer about the errors a handler already returns,
// such as sql.ErrNoRows. Whatever remains unclassified is internal_error,
// whose message never reaches the client. A failure that arrives as text
// only (a handler's own error result, a relayed server's failure) is read
// by [ClassifyText], its first lines: an errno, an exception name, an
// SQL engine's, git's, Redis's or an HTTP status's message gives its
// type, and a fix the server states itself is the next step; other text
// stays execution_failed. The standard library rules
// (fs.ErrNotExist is not_found, fs.ErrPermission access_denied) read what
// an error wraps, not whose it is: mark the server's own failures, such as
// its missing data directory, with [Internal], which outranks every rule.
//
// # The wire contract
//
// Each SDK front's envelope layer answers every failure with a JSON-RPC
// result, never an error member:
//
//	{
//	  "isError": true,
//	  "content": [{"type": "text", "text": "<the envelope as JSON>"}],
//	  "structuredContent": <the envelope>   // omitted if the tool declares an outputSchema
//	}
//
// The envelope has success (false), error_type, tool, message (redacted),
// next_steps, retryable, incident_id (internal errors) and fields
// (validation errors). structuredContent is left out for tools with an
// output schema because strict clients validate it against that schema even
// on errors.
//
// # SDK-neutral
//
// This package imports no MCP SDK. [Renderer] renders an error, a handler's
// own error text, a missing result or a recovered panic to an [Envelope],
// given a [Call] (tool name, arguments, the SDK's request); the fronts turn
// that into their SDK's result type: github.com/mcpguard/mcpguard/envelope
// for mcp-go and github.com/mcpguard/mcpguard/gosdk for the official
// go-sdk. Both export these codes, sentinels and constructors as the same
// values, and a package that only returns coded errors can import this one
// and neither SDK.
package envelope
