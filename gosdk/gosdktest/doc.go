// Package gosdktest lets you test a go-sdk server that uses mcpguard's
// gosdk.Middleware in your own unit tests: connect a real go-sdk client to
// your real *mcp.Server, call tools, and assert on what the agent
// receives, with the same assertions as the mcp-go front's
// middleware/middlewaretest.
//
// # What it guarantees
//
// [Connect] joins the server and a go-sdk client with go-sdk's in-memory
// transport (a pipe carrying the same newline-delimited JSON as stdio);
// [Dial] takes any client transport, e.g. streamable HTTP against
// httptest. [Result.Raw] is the JSON-RPC response the client read, so a
// test sees a JSON-RPC error where the agent would get one, and
// structuredContent only where the server sent it. [Result.ExpectError]
// checks the whole wire contract (a result, never a JSON-RPC error;
// isError: true; a valid envelope, decoded strictly, naming the tool; next
// steps; structuredContent equal to the text envelope when present), and
// [Result.NoLeak] searches every string of the response, JSON inside JSON
// strings included, for what the redactor removes and for the secrets you
// name. The checks are the ones middlewaretest makes, from the same code.
//
// # Where it sits
//
// Outside the server: install gosdk.Middleware on the server as your
// program does, then connect:
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "shop"}, nil)
//	server.AddReceivingMiddleware(gosdk.Middleware())
//	mcp.AddTool(server, tool, handler)
//	s := gosdktest.Connect(t, server)
//	s.Call("shop_get", map[string]any{"id": "p-999"}).
//		ExpectError(gosdk.NotFound).
//		ExpectNextStep("shop_search").
//		NoLeak(dbPassword)
//
// [Connect] also adds a probe to the server, outermost, and fails the test
// when a tool call reaches gosdk.Middleware through a middleware added
// after it, outside it: there an error goes out as a JSON-RPC error with
// its raw text and a panic ends the process. go-sdk offers no way for a
// program to list a server's middleware, so this is where the order is
// checked; [AllowMiddlewareOutside] is for one kept there on purpose.
//
// # Why
//
// A middleware that turns failures into envelopes is only as good as what
// arrives on the wire. Testing a handler's Go return values misses a
// middleware added in the wrong place, a panic that ends the process, the
// code-0 JSON-RPC error go-sdk makes of a low-level handler's (nil, err),
// or a password in a message; these helpers test the bytes.
package gosdktest
