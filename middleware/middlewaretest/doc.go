// Package middlewaretest lets you test mcpguard in your own unit tests: serve
// one tool and its handler behind the layers you choose, call it with
// arguments through the real JSON-RPC path, and assert on what the agent
// receives.
//
// # What it guarantees
//
// Every call goes through (*server.MCPServer).HandleMessage, the function
// every mcp-go transport ends in, and the response is encoded to JSON and
// decoded again, so a test sees exactly the bytes a client would: a JSON-RPC
// error where the agent would get one, structuredContent only where the
// server sends it. [Result.ExpectError] checks the whole wire contract (a
// result, never a JSON-RPC error; isError: true; a valid envelope naming the
// tool; next steps; structuredContent equal to the text envelope when
// present), and [Result.NoLeak] searches every string of the response, JSON
// inside JSON strings included, for what the redact package removes (stack
// traces, source positions, panic details, absolute paths, secret shapes,
// values of secret-named keys, from the one list both use) and for the
// secrets you name, however often they were escaped. A path the call's own
// arguments hold is no leak, as the redactor keeps it.
//
// # Where it sits
//
// Outside the chain: [New] installs your layers with s.Use, in the order
// given, outermost first, as a server would. Pass middleware.Default()... to
// test the recommended chain, a single layer to test it alone, or nothing at
// all to see what plain mcp-go sends. [FromServer] drives a server you
// built, with all its tools, so the same assertions work on your real
// server constructor.
//
// # Why
//
// A middleware that turns failures into envelopes is only as good as what
// arrives on the wire. Testing a handler's Go return values misses a layer
// in the wrong order, a panic that escapes, a JSON-RPC error mcp-go makes of
// a (nil, err), or a password in a message; these helpers test the bytes.
//
// Expect methods report with t.Errorf and return the Result, so checks
// chain and one test reports every broken promise at once:
//
//	srv := middlewaretest.New(t, tool, handler, middleware.Default()...)
//	srv.Call(map[string]any{"id": "p-999"}).
//		ExpectError(envelope.NotFound).
//		ExpectNextStep("shop_search").
//		NoLeak(dbPassword)
package middlewaretest
