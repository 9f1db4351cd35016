// Package audit checks an MCP server's tools against the agent-readiness
// rules — namespaced names (A), intent-oriented descriptions (B), strict
// schemas (C), structured error envelopes (D), consistent annotations (E)
// and no tool poisoning (F) — scores each, and gates on a pinned
// [Baseline] and on a stable, bounded tools/list. It works on any server,
// in any language: a tool list, an in-process mcp-go server, or any server
// a connected mcp-go client reaches over stdio or streamable HTTP. The
// mcpguard-audit command (cmd/mcpguard-audit) is its command-line front
// end; reports render as text, JSON, SARIF 2.1.0 ([Report.WriteSARIF]) and
// Markdown ([Report.WriteMarkdown]).
//
// # What it guarantees
//
// Every [Finding] names its rule, a stable check ID, a severity, the tool,
// the path of what it is about ([Pointer] turns it into a JSON pointer), a
// message saying why it hurts an agent, and a concrete fix. [Checks] is
// the catalog of every check with its severity and why it matters:
//
//	A.name          error    name outside the MCP spec's 1-128 chars of A-Z a-z 0-9 _ - .
//	A.namespace     error    name lacks the server's shared namespace prefix, or no prefix is shared
//	A.snake_case    warning  name (after the prefix) is not snake_case
//	A.duplicate     error    two tools share a name
//	B.missing       error    no description
//	B.short         warning  description under 40 characters (WithDescriptionLength)
//	B.long          warning  description over 1024 characters
//	B.when          warning  no trigger or precondition ("Use this when", "after", "before" ...)
//	B.next          info     no successor named (another tool, "then", "next" ...)
//	B.unknown_tool  error    description names a tool the server lacks: a prefixed name,
//	                         an old unprefixed name, or a near-miss of a real tool's name
//	C.root_type     error    input schema is not "type": "object" (no-argument tools included)
//	C.type          error    a property, or an array's items, has no concrete type
//	C.enum          error    description lists the values ("one of: ...") but no enum;
//	                warning  a categorical name (category, status, sort_by ...) without enum
//	C.pattern       warning  an ID-like string (id, *_id, *Id, sku, slug ...) without pattern
//	C.bounds        error    a number's description states a bound the schema lacks;
//	                warning  a number or integer without minimum and maximum
//	C.max_length    error    a string's description states a length limit the schema lacks;
//	                warning  a free string (no enum, pattern or bounded format) without maxLength
//	C.max_items     warning  an array without maxItems
//	C.additional    warning  an object without additionalProperties: false
//	C.network_ref   error    a $ref outside the schema (a URL or a file), input or output
//	C.too_complex   error    a schema deeper than 32 levels or over 10,000 nodes, or a
//	                         definition nested deeper than 64: the audit stops reading there
//	D.not_probeable info     no invalid call exists for the tool; it is never called
//	D.jsonrpc_error error    an invalid call was answered with a JSON-RPC error
//	D.jsonrpc_code  error    ... with code 0, -32603, or a legacy (-32000..-32019) or
//	                         reserved (-32020..-32099) code
//	D.no_answer     error    an invalid call got no answer (transport failure, timeout)
//	D.accepted_invalid error an invalid call was answered with success
//	D.envelope      error    isError: true, but plain text or JSON without a taxonomy error_type
//	D.next_steps    warning  the envelope has no next_steps
//	D.error_type    warning  invalid arguments answered with internal_error;
//	                info     answered with execution_failed or not_found
//	D.structured_error error isError structuredContent that breaks the tool's outputSchema
//	D.leak          error    the answer carries a stack trace, file path or panic value
//	E.missing       warning  no annotations
//	E.read_only     warning  a get_/list_/search_/read_ ... tool without readOnlyHint: true
//	E.destructive   error    a delete_/drop_/remove_ ... tool claiming readOnlyHint: true
//	                         or destructiveHint: false
//	F.hidden_unicode error   invisible Unicode: tag characters, zero-width, bidi controls
//	F.important     error    <IMPORTANT>, <SYSTEM>, <instructions> blocks
//	F.instructions  error    instructions to the model ("ignore previous instructions",
//	                         "do not tell the user", ~/.ssh ...)
//	baseline.added   error   a tool the baseline ([WithBaseline]) does not have
//	baseline.removed error   a baseline tool no longer listed
//	baseline.changed error   a tool whose definition changed; Finding.Diff shows how
//	list.changed    error    definitions differ between two tools/list calls in one run
//	list.order      warning  two tools/list calls list the tools in different orders
//	list.tokens     warning  the definitions exceed the token budget (WithTokenBudget)
//
// Rule C reads a schema the way a validator applies it: allOf branches add
// their constraints to the node; anyOf and oneOf branches that admit only
// null (pydantic's and FastMCP's Optional[...]) are ignored, and when the
// rest are scalars the node has a constraint when every branch has it (an
// enum when each branch is an enum or const, a bound when each has it or
// is a const, and so on); object and array alternatives are checked as
// nodes of their own. "type" arrays ignore "null", a const counts as an
// enum, and local $refs ("#/$defs/x") are followed. A $ref target is read
// once per schema, however many paths lead to it: its nested findings are
// reported at the first path that reaches it, while each node that refers
// to it still gets its own keywords checked.
//
// The namespace prefix is the one given with [WithPrefix], or the leading
// word ("shop_" in "shop_search") that more than half of the tools, and at
// least two, share. Common verbs ("get_", "list_", "search_") never count
// as a namespace.
//
// # Baselines
//
// A [Baseline] is the lockfile of package core/pin: each tool's name,
// title, description, input and output schemas and annotations in RFC
// 8785 canonical form with its SHA-256, one line per tool, pinned as the
// server sent them (a [RawLister] keeps those bytes; the in-process server
// and mcpguard-audit are ones), so that mcpguard-proxy --pin FILE and the
// fronts' pin option enforce the same file at run time. Member order,
// white space and number spelling are not part of a definition. Approving
// a change is writing the baseline again ([Report.Baseline],
// --baseline). [ReadBaseline] refuses a baseline edited by hand, with a
// member named twice, two pins for one tool, or over [pin.MaxLockBytes].
//
// # Scores
//
// Each scored rule (A to F) scores the share of its items that have no
// error or warning: for A each tool name, for B each description, for C
// each schema node (the input schema and every property, nested ones
// included), for D each probed tool, for E and F each tool. Infos never lower a score. Overall is the mean of the rules
// checked; D counts only when probed. A report with no error or warning
// scores 100% everywhere ([Report.Perfect]).
//
// # The probe never sends a valid call
//
// Rule D is opt-in ([WithProbe], --probe) because it calls the server. For
// each tool it builds at most three calls: all required fields missing, a
// wrong type for one property, and one number just past its bound. Before
// sending a call it validates the arguments against the tool's own input
// schema (JSON Schema, external $refs never loaded) and drops any call the
// schema accepts; a tool that admits no invalid call is reported as not
// probeable and never called. A call to a tool with required fields always
// omits all of them, so even a server that ignores its schema lacks the
// input it needs to act. A tool whose fields are all optional is probed
// only with a wrong type or an out-of-range number; a server that ignores
// its own schema could act on such a call, which is exactly the defect
// D.accepted_invalid reports. Use [WithSkip] (--skip) for tools that must
// never be called at all.
//
// # Bounds
//
// A hostile server can neither stall nor flood an audit. [WithDeadline]
// bounds the whole run (5 minutes by default) and [WithTimeout] each probe
// call; an analysis or probe the deadline cuts short returns the report so
// far, marked [Report.Incomplete], which fails. [Limits] bound the pages,
// tools and bytes of tools/list (the audit lists page by page when the
// [Caller] can, and stops at the first limit or a repeated cursor) and the
// findings listed per rule. Every schema walk is bounded in depth and
// nodes, looks at the deadline as it goes, and reports a schema past its
// bounds (C.too_complex), so the analysis is linear in the size of the
// listing whatever its schemas say. Every report format escapes server text: a tool name
// cannot move a terminal's cursor or add a link to a Markdown comment.
//
// # Only the address it was given
//
// The audit opens no connection of its own: it talks to the client it is
// handed ([Client]) or the in-process server ([Server]). mcpguard-audit
// connects only to loopback (--url accepts localhost, 127.0.0.0/8 and
// ::1), and its HTTP client never leaves the scheme, host and port of
// --url: a server that redirects elsewhere (a 307 to another port, or to
// another name of the same host) gets nothing sent there, and the run ends
// with exit status 2 and a message saying where the redirect led, since
// the server asked for is not the one that would answer. A redirect within
// the address (another path) is followed. --follow-redirects follows
// redirects to other loopback addresses too; a redirect off loopback is
// refused either way. A Go program that builds its own client for
// [Client] sets such a policy with http.Client.CheckRedirect.
//
// # Where it sits
//
// Outside the chain: the audit is a client of the server. From a Go test,
// audittest.RequireServer (package audit/audittest) audits an in-process
// *server.MCPServer through its full middleware chain (HandleMessage), so
// a server built with s.Use(middleware.Default()...) and validation can
// assert full marks:
//
//	audittest.RequireServer(t, s, audit.WithProbe(), audit.WithFailOn(audit.Warning))
//
// audittest.Require does the same for a bare tool list; [Server] and
// [Tools] return the report without a test; [Client] takes any connected
// mcp-go client.
//
// # Why
//
// Agents do not read a server's README; they read tools/list. A name
// without a namespace collides with another server's tool, a description
// that does not say when to call a tool gets it called at the wrong step, a
// free-form schema gets "ai-ml" where "AI/ML" was meant and 99999 where 50
// was the ceiling, and an error the model cannot parse stalls the agent
// loop. These rules can be checked mechanically, so they belong in CI.
package audit
