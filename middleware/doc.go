// Package middleware composes mcpguard's layers and provides the
// recommended stack.
//
// # One line
//
//	s := server.NewMCPServer("shop", "1.0.0")
//	s.Use(middleware.Default()...)
//
// After that, every tool failure, whether the handler returned an error,
// built an error result itself, or panicked, reaches the agent as a
// redacted isError envelope, and nothing a handler does becomes a JSON-RPC
// error.
//
// # Task tools
//
// mcp-go runs a handler added with s.AddTaskTool without the middlewares of
// s.Use. Register task tools with [AddTaskTool] instead: one extra line per
// task tool, after which the chain guards each run of the task and a
// failure reaches tasks/result as an envelope. A tool added with s.AddTool
// and mcp.WithTaskSupport needs nothing more. With [WithLogger], the
// Logging layer names, once per server at the first call it sees there,
// the task tools added with s.AddTaskTool ([TaskToolsLogMessage]).
//
// # The order of Default
//
//	request ──▶ Logging ──▶ recover ──▶ repeats ──▶ redact ──▶ envelope ──▶ pins ──▶ seal ──▶ hints ──▶ limits ──▶ declared ──▶ [your layers] ──▶ handler
//	            (opt-in)                           (limit.Repeats)          (opt-in:  (SealState) (opt-in:           (validate.DeclaredSchemas)
//	                                                                        WithPins)             WithHints) (opt-in: WithLimits)
//	result  ◀── one record ◀── panic ──▶ internal_error
//	                           ◀── scrub error text
//	                                      ◀── (nil, err) ──▶ envelope
//
// recover is outside everything that can fail. redact is outside envelope,
// so it also sees error results that layers between them, or the handler,
// built by themselves. Logging, when enabled, is outermost so it records
// what the client finally received, including recovered panics. repeats
// (limit.Repeats, [WithRepeats]) holds back, for a short wait, a call that
// already failed three times with the same arguments for the same caller,
// in a way it cannot overcome unchanged, until any call of that caller
// succeeds; it sits outside envelope, whose envelopes it counts, and
// outside the limits, so that such a call takes no token. hints
// ([WithHints]) sits where core/pipeline's admission order puts it, outside
// the limits and the declared check, so that their refusals get the
// tool's next steps as the handler's failures do. Limits
// ([WithLimits]: limit.Rate, limit.Concurrency, limit.Timeout) sit right
// inside envelope, so a refused call skips every layer after them and a
// panic handed back by limit.Timeout still reaches recover. The declared
// layer checks the arguments against the schema the tool itself declares
// and answers a violation with a validation_error envelope before your
// layers or the handler run ([WithoutDeclaredSchemas] turns it off, for
// the chain or for some tools). The seal layer ([SealState]) seals every
// requestState a tool hands out (MCP 2026-07-28 multi round-trip
// requests) and opens every echo before anything inside reads the call; a
// state that does not open is answered with a validation_error envelope
// and never reaches the handler ([WithStateKeys] for a key ring shared by
// replicas, [WithoutStateSealing]; docs/protocol-2026-07-28.md).
//
// # Pinned tool definitions
//
// For servers that load tools they do not write (plugins, generated
// tools), [WithPins] holds each tool to the definition approved in a lock
// (core/pin, written by mcpguard-audit --baseline): a tool whose name,
// title, description, schemas or annotations changed since, or that
// nobody approved, is refused with an access_denied envelope naming it,
// and the server option [PinListing] leaves it out of tools/list. The
// operator gets one log line per such definition, with the difference.
// pins sits right inside envelope, so that a held-back call takes no
// token and skips every layer that admits a call.
//
// # One renderer
//
// Default builds one envelope.Renderer from [WithEnvelopeOptions] and gives
// it to every layer that answers with an envelope: the envelope layer,
// recover (a panic), and, through envelope.RendererFrom, hints and validate
// inside it. A configured internal message, default next step or redactor
// ([WithRedactor]) therefore holds for every failure, whichever layer
// answers.
//
// # Gradual adoption
//
// [Wrap] applies layers to one handler at registration; [ForTools],
// [ExceptTools] and [When] apply a layer to some tools only, the way
// go-grpc-middleware's selector does. Every layer is safe on its own: for
// example Wrap(h, recover.Middleware()) alone already turns a panic into an
// envelope.
package middleware
