// Package gosdk gives servers built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) the guarantees mcpguard gives
// mcp-go servers, with the same envelope on the wire, byte for byte.
//
// # What it guarantees
//
// [Middleware] is the recommended chain as one go-sdk receiving
// middleware. For tools/call:
//
//   - A panic in the handler, or in a middleware inside this one, becomes
//     an internal_error envelope with a fresh incident ID; the value and
//     the stack go to the log only, and the process keeps serving. All
//     seven kinds are handled: strings, errors, custom types, panic(nil),
//     nil-map writes, index out of range, nil dereferences.
//   - A result go-sdk could not encode no longer ends the process: go-sdk
//     encodes a result in its jsonrpc2 layer after every middleware has
//     returned, where a MarshalJSON that panics kills the server (printing
//     the panic value) and one that fails leaves the call unanswered. The
//     Middleware encodes every value whose encoding could run the
//     handler's code or fail (in structuredContent, the result's and each
//     content item's _meta, embedded resources' _meta, content types of
//     the handler's own) as json.RawMessage, once, inside its recover; a
//     panic there is an incident like any other, an encoding error an
//     internal_error with an incident ID. Values encoding/json encodes by
//     reflection alone (text, numbers, decoded JSON, the json.RawMessage
//     typed handlers set, after a validity check, structs of plain fields)
//     are left as they are. Middleware outside this one sees the encoded
//     values as json.RawMessage.
//   - A low-level handler's (nil, err), which bare go-sdk sends as a
//     JSON-RPC error with code 0 and the raw message, becomes an envelope:
//     classified, redacted, with next steps.
//   - A typed handler's error (mcp.AddTool), which go-sdk packs into an
//     isError result with its raw text, is classified from the error
//     itself (CallToolResult.GetError), so sentinels and codes count:
//     fmt.Errorf("…: %w", gosdk.ErrNotFound) is not_found. go-sdk's own
//     "validating \"arguments\"" failures are validation_error. One that
//     nothing classifies keeps its text, redacted, classified by what it
//     says as an error result's text is (execution_failed when it says
//     nothing; the same answer as mcpguard-proxy's, which reads the text):
//     bare go-sdk would have sent that text, so the agent never reads less
//     (the core's Call.Shown).
//   - An error result a handler built itself is rewritten as an envelope
//     (unless [WithoutNormalization]); a nil result is an internal_error.
//     An envelope in its text keeps its code, message and fields, redacted,
//     the fields capped at [MaxFieldErrors] and a "more" entry, each
//     string bounded; its next_steps and retryable are the Middleware's
//     unless core/envelope's WithTrustedEnvelopes says otherwise.
//   - A toolFailure _meta ([ToolFailureMetaKey]) a handler put in any
//     result, failure or success, is dropped; [WithToolFailureMeta] adds
//     the Middleware's own, derived from its envelope.
//   - Every error result is redacted in every position that carries text
//     (text, resource links, embedded resources, _meta, structured
//     content); image and audio data are left alone.
//   - What GetError returns stays the handler's own error for middleware
//     outside this one (tracing, metrics): errors.Is still finds its
//     sentinels.
//   - Unknown tools, and *jsonrpc.Error values a handler returns on
//     purpose, stay JSON-RPC errors, as in the mcp-go chain (their
//     message redacted). Malformed requests never reach any middleware:
//     go-sdk answers them itself.
//   - Every error result it renders carries go-sdk's resultType, as a
//     tool's own result does, for clients of protocol 2026-07-28.
//
// Every other method passes through untouched, without allocating. A
// successful tools/call costs one context value (the layers inside find the
// chain's configuration in it) and nothing else.
//
// # Where it sits
//
// go-sdk applies receiving middleware so that the last added is the
// outermost, and within one call AddReceivingMiddleware(m1, m2) makes m1
// outer. Add gosdk.Middleware after your other middleware, so that it is
// outside them; [Install] does it in one call, with the hints layer
// inside it ([WithHints]):
//
//	server := mcp.NewServer(impl, nil)
//	server.AddReceivingMiddleware(auth, rateLimit) // inside: covered
//	gosdk.Install(server, gosdk.WithLogger(logger), gosdk.WithHints(rules...))
//
// go-sdk v1.8.0 lists a server's middleware nowhere, so no code can check
// the order at startup; package gosdktest's Connect can, in a test: it
// fails a tool call that reaches gosdk.Middleware through a middleware
// added after it.
//
// A middleware inside it that panics or returns an error for a tool call
// still ends as an envelope. go-sdk v1.8.0 recovers panics nowhere: a panic
// in a middleware added after gosdk.Middleware (outside it) ends the whole
// process, and nothing this package does can prevent that. Keep only
// middleware you trust not to panic outside it (tracing that must see the
// final result is the usual case); a test in this module proves the
// behaviour, so a go-sdk that starts recovering will be noticed.
//
// # Structured content and hints
//
// Inside receiving middleware, a typed tool's StructuredContent is never
// the Go value its handler returned: go-sdk's mcp.AddTool and [AddTool]
// set it to its JSON, a json.RawMessage, and the Middleware encodes any
// other value to one. An [OnSuccessFunc] that type-asserts the output type
// (as one written for mcp-go, where StructuredContent keeps the handler's
// value, does) never matches: use [OnSuccessOf], which decodes the output
// into its type. The hints layer checks the tools its hints name against
// the server's once, and never sends a step naming one it does not have.
//
// # Limits
//
// Timeouts, rate limits and concurrency bounds are in package
// github.com/mcpguard/mcpguard/gosdk/limit, the same layers under the same
// names as the mcp-go front's limit package. Pass them with [WithLimits],
// which puts them inside the Middleware, after its recovery and rendering,
// cheapest refusal first:
//
//	server.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(
//		limit.Rate(10, 20),                         // per user (TokenInfo), else address, else global
//		limit.Concurrency(8, limit.WithMaxWait(0)), // at most 8 handlers running, stuck ones included
//		limit.Timeout(5*time.Second),               // each caller answered within 5 s
//	)))
//
// The order of the chain for tools/call is then
//
//	request → log → recover → encode → unknown → repeats → redact → envelope → pins → seal → hints → limits → declared → middleware added before → go-sdk → handler
//
// [Middleware]'s doc comment says what each step does. "pins" holds
// the tools to the definitions approved in a lock ([WithPins]: a tool
// changed since, or new, is left out of tools/list and its calls refused
// with access_denied). "seal" seals every requestState a tool hands out and opens every echo before
// anything inside reads the call ([WithStateKeys], [WithStateCaller],
// [WithoutStateSealing]; docs/protocol-2026-07-28.md); "repeats" is the
// repeated-failure guard ([Repeats], [WithRepeats];
// docs/wire-contract.md#repeated-failures); "limits" are those of
// [WithLimits], in the order given; "declared" checks each call against
// the input schema the tool declares (low-level Server.AddTool tools and
// mcp.AddTool tools; gosdk.AddTool's are left to it), off with
// [WithoutDeclaredSchemas].
//
// Inside the recovery, a panic that limit.Timeout raises again from the
// handler's goroutine ends as an internal_error incident rather than the
// process; refusals and timeouts are envelopes rendered with the
// Middleware's configuration ([ErrorResult]), and a refused call skips
// the middleware you added before gosdk.Middleware.
//
// # Names on both fronts
//
// The same concept has the same name on both fronts: gosdk.ErrNotFound is
// envelope.ErrNotFound, gosdk.WithMapping is middleware.WithEnvelopeOptions'
// envelope.WithMapping, gosdk/limit.Rate is limit.Rate. Where one package
// here stands for several there, or a concept belongs to one SDK, the
// names differ or exist on one front only:
//
//	mcp-go                         go-sdk                            why
//	hints.Registry                 HintRegistry                      one package here: hints' names take a Hint prefix
//	hints.New                      NewHintRegistry                   one package here
//	hints.WithLogger               WithHintLogger                    one package here: WithLogger configures the Middleware
//	hints.WithRedactor             WithHintRedactor                  one package here: WithRedactor configures the Middleware
//	hints.Option                   HintOption                        one package here
//	hints.MetaKey                  NextStepsMetaKey                  one package here
//	hints.Middleware               Hints                             one package here: Middleware is the chain
//	-                              WithHints                         the hints inside the chain, which mcp-go composes with s.Use
//	-                              WithHintRegistry                  the same, with a registry built by NewHintRegistry
//	-                              OnSuccessOf                       go-sdk middleware sees structuredContent as JSON: typed success hints decode it
//	-                              SuccessFuncOf                     the function OnSuccessOf takes
//	-                              Install                           go-sdk cannot list its middleware: one call installs the chain in order
//	-                              MultiRoundTrip                    whether a call's client negotiated 2026-07-28, as go-sdk decides it; mcp-go's is mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
//	-                              Shedding                          whether a layer inside may shed a call (load-shedding input_required); mcp-go's server cannot write the empty inputRequests
//	-                              ShedResult                        the load-shedding answer the sealing step seals
//	envelope.Option                EnvelopeOption                    one package here: Option configures the Middleware
//	envelope.Renderer              -                                 mcp-go finds the chain's renderer through the server; the Middleware holds it here
//	envelope.NewRenderer           -                                 the same
//	envelope.RendererFrom          -                                 the same
//	envelope.RendererOutside       -                                 the same, for a layer outside the envelope layer
//	envelope.Overlay               -                                 the same: a layer's options over the chain's renderer (AddTool applies validate.WithEnvelopeOptions)
//	envelope.NewOverlay            -                                 the same
//	recover.WithRenderer           -                                 the same
//	envelope.InternalResult        -                                 builds an mcp-go result; ErrorResult(ctx, req, Internal(err)) here
//	envelope.FromResult            -                                 reads an mcp-go result; gosdktest.Result.Envelope here
//	envelope.ArgumentsOf           -                                 reads an mcp-go call's raw arguments; go-sdk's are req.Params.Arguments as sent
//	envelope.TextOf                -                                 reads an mcp-go content item's text; go-sdk's *mcp.TextContent is read as it is
//	envelope.RPCCodeOf             -                                 the JSON-RPC code mcp-go sends for a handler's error; go-sdk sends the error's own
//	envelope.Layer                 -                                 runs core/chain's stages as one mcp-go layer; the Middleware runs every stage in one chain here
//	envelope.Answer                -                                 the same: core/chain's answer on mcp-go (a result and an error)
//	envelope.Reading               -                                 the same: mcp-go's one reading of a call and its answer for core/chain
//	recover.Stage                  -                                 a layer's stage for a chain of several (core/chain); the Middleware is one chain here
//	redact.Stage                   -                                 the same
//	limit.RepeatsStage             -                                 the same
//	validate.DeclaredStage         -                                 the same: the declared check as a gate of admission (core/chain)
//	envelope.Gate                  -                                 runs a core/chain gate of admission as one mcp-go layer; the Middleware's steps are its own
//	middleware.Default             -                                 Middleware is the whole default chain
//	-                              Repeats                           the repeated-failure guard sits in the Middleware's own guard; mcp-go's is the layer limit.Repeats
//	-                              NewRepeats                        builds a Repeats from a core/limit.Repeats; gosdk/limit.Repeats is the usual way
//	-                              CallerKey                         the default caller key of the Middleware's guard, which cannot import gosdk/limit; gosdk/limit.DefaultKey returns it
//	middleware.Chain               -                                 go-sdk composes middleware itself (AddReceivingMiddleware)
//	middleware.When                -                                 the same
//	middleware.MatchFunc           -                                 the same
//	middleware.ForTools            -                                 the same
//	middleware.ExceptTools         -                                 the same
//	middleware.Logging             -                                 the log record is WithLogger's, inside the Middleware
//	middleware.AddTaskTool         -                                 mcp-go runs AddTaskTool handlers outside s.Use; go-sdk v1.8.0 serves no tasks
//	middleware.AddTaskTools        -                                 the same
//	middleware.TaskHandler         -                                 the same
//	middleware.TaskToolsLogMessage  -                                the same: the record of task tools mcp-go runs outside s.Use
//	middleware.PinListing          -                                 mcp-go lists tools outside s.Use (a server option); WithPins filters tools/list here
//	middleware.WithRecoverOptions  -                                 recovery options are the Middleware's own (WithOnPanic, WithoutStack)
//	middleware.WithRedactOptions   -                                 redaction options are the Middleware's own (WithRedactor, WithRedactSuccesses)
//	redact.WithRedactSuccesses    WithRedactSuccesses               the same name, also here
//	redact.Redactor                -                                 the Redactor is core/redact's; import github.com/mcpguard/mcpguard/core/redact
//	redact.Default                 -                                 core/redact.Default
//	redact.New                     -                                 core/redact.New
//	redact.Rule                    -                                 core/redact.Rule
//	redact.NewRule                 -                                 core/redact.NewRule
//	redact.DefaultRules            -                                 core/redact.DefaultRules
//	redact.WithRules               -                                 core/redact's Redactor.With
//	redact.WithoutRules            -                                 core/redact's Redactor.Without
//	redact.Placeholder             -                                 core/redact.Placeholder
//	redact.IsSecretKey             -                                 core/redact.IsSecretKey
//	redact.String                  -                                 core/redact.String
//	redact.Handler                 -                                 core/redact.Handler: a slog handler, no SDK
//	redact.Result                  -                                 redacts an mcp-go result; the Middleware redacts go-sdk's
//	validate.Option                ToolOption                        one package here: Option configures the Middleware
//	validate.Validator             Validator                         the same name, also here
//	validate.New                   NewValidator                      one package here
//	validate.Default               -                                 core/validate.Default
//	validate.Args                  -                                 go-sdk binds through AddTool[In, Out]
//	validate.ArgsFrom              -                                 AddTool hands the handler its In
//	validate.Handler               AddTool                           go-sdk's typed handlers, unchanged
//	validate.StructuredHandler     -                                 AddTool[In, Out] is typed on both sides
//	validate.InputSchema           -                                 AddTool sets the tool's input schema from In
//	validate.OutputSchema          -                                 AddTool sets the output schema from Out
//	validate.OutputSchemaOf        -                                 the same
//	validate.Schema                -                                 core/validate's Binder.Schema
//	validate.RuntimeOnly           -                                 core/validate's Binder.RuntimeOnly
//	validate.RegisterPattern       -                                 core/validate.RegisterPattern, shared by both fronts
//	validate.CheckTool             -                                 AddTool panics on a declared schema that disagrees with In
//	validate.DeclaredSchemas       -                                 the declared-schema check is inside Middleware (WithoutDeclaredSchemas turns it off); on mcp-go it is also a layer of its own
//	middleware.SealState           -                                 the requestState sealing is inside Middleware (WithoutStateSealing turns it off); on mcp-go it is also a layer of its own
//	-                              WrapTool                          runs a low-level handler behind the receiving middleware, for handler-level tests; mcp-go has middleware.Wrap
//	middleware.Wrap                -                                 WrapTool here
//	limit.HTTPContext              -                                 go-sdk's HTTP handler has no context hook: limit.HTTPHandler wraps it
//	-                              limit.HTTPHandler                 the same
//	middlewaretest.Server          gosdktest.Session                 a go-sdk client holds a session over a transport
//	middlewaretest.FromServer      gosdktest.Connect                 connects a real go-sdk client over the in-memory transport
//	middlewaretest.New             -                                 mcp-go's one-tool shortcut; on go-sdk add the tool to a server and Connect
//	-                              gosdktest.Dial                    any go-sdk transport: stdio, streamable HTTP
//	-                              gosdktest.ConnectOption           the chain-order check, which only go-sdk needs
//	-                              gosdktest.AllowMiddlewareOutside  the same
//
// # Why
//
// On go-sdk the gaps mcpguard closes are wider than on mcp-go: a panic
// kills the server, and a (nil, err) sends the raw error text, secrets
// included, as a code-0 JSON-RPC error the agent cannot act on. The
// classification, rendering and redaction are the SDK-neutral core's
// (github.com/mcpguard/mcpguard/core), the same code the mcp-go front
// uses; this package only reads and writes go-sdk's types. Test a server
// with package gosdktest, which asserts on what a real go-sdk client
// receives.
package gosdk
