// Package proxy is the logic of the mcpguard-proxy command: mcpguard's
// guarantees in front of an unmodified MCP server, in any language, on the
// wire itself. It imports no MCP SDK: it reads JSON-RPC, and renders and
// redacts with the same core (core/envelope, core/redact, core/limit) as
// the mcp-go and go-sdk fronts, so the three cannot disagree.
//
// # What it changes
//
// Only the answers to tools/call:
//
//   - a JSON-RPC error becomes an isError result carrying an envelope:
//     -32602 is validation_error, anything else is classified from its text
//     by the core's heuristics (execution_failed unless the text says
//     better). An unknown tool stays a protocol error, as MCP asks; a call
//     of a tool a complete tools/list does not name is answered by the
//     proxy (-32602, naming the tools), as the SDK fronts answer it;
//   - an isError result becomes an envelope the same way, its other content
//     items and _meta redacted. An envelope the server wrote itself keeps
//     its next steps;
//   - a success passes through byte for byte, or redacted with
//     [WithRedactSuccesses].
//
// A tools/call run as a task is followed to its result (tasks.go): the
// answer to tasks/result is rewritten as the answer to the call that
// created the task, and a task's statusMessage (tasks/get, tasks/list,
// tasks/cancel, notifications/tasks/status) is made safe. A multi
// round-trip (input_required) answer passes as the server wrote it.
//
// Everything else (initialize, notifications, progress, logging, the
// server's sampling and elicitation requests and the client's answers,
// resources, prompts, completion, ping, cancellation) passes through.
//
// # Reading once
//
// Every client message is read once, by one strict reader (package rpc:
// jsontext, which refuses invalid UTF-8 and bad escapes, and a check that
// no object at any depth holds two names equal or equal but for case), and
// what goes upstream for a request is the proxy's own: an id it minted
// (rpc/ids.go; answers are matched by it and sent back under the client's id
// bytes), a tools/call's params in the proxy's encoding, its arguments as
// the declared check read them (declared.go). A message the proxy cannot
// read as every server would is answered by the proxy (refuse.go), on
// stdio as on HTTP. tools/list results are read on the way (and the proxy
// lists the tools itself, every page, before a call when no client did,
// or when the call's tool is on a page not yet read: listing.go) to
// learn which tools exist, their input schemas, and which declare an
// output schema (their envelopes then carry no structuredContent). When
// the server sends notifications/tools/list_changed, what was learned is
// forgotten and the proxy lists the tools again before the next call.
// Over HTTP each MCP session has its own tools (tooltable.go).
//
// # Bounds and faults
//
//   - Every message is bounded, both ways ([WithMaxMessage], 16 MiB by
//     default): a longer one is read through and dropped, never buffered,
//     and the request it answered is answered with an envelope;
//   - a tool call the server does not answer within [WithTimeout] (2
//     minutes by default) is answered with a retryable execution_failed, and
//     the server is sent notifications/cancelled;
//   - a child that exits answers every call in flight with internal_error
//     under an incident ID, and is restarted with backoff (100 ms doubling
//     to 10 s) and initialized as the client initialized the first one;
//   - a response to an id that is not in flight is dropped and logged;
//   - a client line that is not a JSON-RPC object is answered with -32700
//     (a batch with -32600), and the session goes on;
//   - a client message the server might read otherwise than the proxy
//     does is answered with -32600 (-32700 for what is not JSON) and
//     never reaches the server; over HTTP so is a JSON-RPC batch;
//   - over HTTP, an upstream's 5xx crash page, or an answer in an encoding
//     the proxy did not decode, is never relayed: the proxy answers;
//   - a panic while handling a message is recovered and logged; a tool
//     call it happened on is answered with internal_error.
//
// # Limits
//
// [WithRate] (one budget per client; [WithRatePerTool] for one per tool)
// and [WithConcurrency] are core/limit's Rate and Slots: a refused call is
// answered with retry_after_ms and never reaches the server. A call holds
// its slot until the server answered it or the proxy stopped waiting for
// good ([WithConcurrency] says when). A call of a 2026-07-28 client (its
// request's _meta says so) that either refused is held instead, within
// [WithHoldCap] (3 s by default) and its timeout, until the limit admits
// it: core/limit's Absorb, as on both fronts (hold.go). One whose wait
// fits but that finds the hold bound full is shed, as on the go-sdk
// front, while requestState is sealed (the default): answered with
// input_required, "inputRequests":{} and a sealed shed state, which the
// client's SDK re-sends by itself, and the limit decides again.
//
// The repeated-failure guard, core/limit's stage every consumer runs, is on
// by default ([WithRepeats] replaces it, nil turns it off): it holds back,
// for a short wait, a client's call that already failed three times
// unchanged, until any call of that client succeeds (repeats.go).
//
// # Pinned tool definitions
//
// [WithPins] holds the server's tools to the definitions a lock approved
// (core/pin; mcpguard-audit --baseline writes it). Each tool definition a
// tools/list result carries is reviewed, as the server wrote it, when the
// proxy reads the listing (pin.go): a tool whose definition changed, or
// that is new, is left out of the listing the client gets (not listed as
// its pinned version), and a call to it, or to a tool the proxy has not
// seen listed, is answered with access_denied and never reaches the
// server. The operator gets core/pin's one log line per definition held
// back, with the difference. After notifications/tools/list_changed the
// next call waits for the new listing, so the new verdicts apply to it. An
// approved tool's call costs the table lookup every call makes.
//
// # Telemetry
//
// [WithTelemetry] traces and measures every client request with core/otel,
// the instrument the SDK fronts share: a SERVER span by the OpenTelemetry
// conventions for MCP, started when the request is read and ended, once,
// with what the client is answered, whichever path answers it (the
// upstream's result or error, an envelope the proxy rendered, a child's
// crash), or with error.type cancelled when no answer comes; and the
// histogram mcp.server.operation.duration, on which a tool the upstream has
// not listed is _OTHER. No attribute carries an argument value or an error
// message. Without the option nothing is installed.
//
// # Transports
//
// [Stdio] starts the server as a child and serves one client on a stream
// pair: what a host launches. [HTTP] is an http.Handler in front of a
// streamable HTTP server; it reads event streams event by event, and
// rewrites only the event that answers the call, on the call's POST or,
// when the server ended that stream before answering (SEP-1699 polling)
// or replays it (Last-Event-ID), on a GET stream of the call's session.
// A response there whose request the proxy does not remember is dropped.
package proxy
