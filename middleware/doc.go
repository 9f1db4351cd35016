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
// # The order of Default
//
//	request ──▶ Logging ──▶ recover ──▶ redact ──▶ envelope ──▶ [your layers] ──▶ handler
//	            (opt-in)
//	result  ◀── one record ◀── panic ──▶ internal_error
//	                           ◀── scrub error text
//	                                      ◀── (nil, err) ──▶ envelope
//
// recover is outside everything that can fail. redact is outside envelope,
// so it also sees error results that layers between them, or the handler,
// built by themselves. Logging, when enabled, is outermost so it records
// what the client finally received, including recovered panics.
//
// # Gradual adoption
//
// [Wrap] applies layers to one handler at registration; [ForTools],
// [ExceptTools] and [When] apply a layer to some tools only, the way
// go-grpc-middleware's selector does. Every layer is safe on its own: for
// example Wrap(h, recover.Middleware()) alone already turns a panic into an
// envelope.
package middleware
