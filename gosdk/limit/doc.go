// Package limit bounds the tool calls of a go-sdk server
// (github.com/modelcontextprotocol/go-sdk) in time, rate and concurrency,
// and answers every call it stops with an envelope the agent can act on,
// never with a JSON-RPC error it would not see. It is the go-sdk twin of
// the mcp-go front's github.com/mcpguard/mcpguard/limit: the same layers,
// options and envelopes, under the same names, on the same SDK-neutral
// core.
//
// # Guarantees
//
//   - [Timeout]: the handler's context carries a deadline; a call that
//     passes it is answered at the deadline, even when the handler ignores
//     its context, with execution_failed, retryable, and a next step that
//     says how to make the call cheaper. No goroutine outlives the
//     handler, and a panic in the handler's goroutine ends as an
//     internal_error incident, never as the end of the process.
//   - [Rate]: token buckets from golang.org/x/time/rate, keyed by what a
//     caller cannot invent ([DefaultKey]), or by your [KeyFunc]. A refused
//     call is execution_failed, retryable, with "retry_after_ms" and a
//     next step that says to wait that long. Memory is bounded in bytes
//     however many keys, and however long, callers invent.
//   - [Concurrency]: at most n handlers running; the rest wait up to a
//     bound, then are refused the same way. A handler Timeout gave up on
//     still counts until it has returned.
//
// A refused call never reaches the handler, nor the middleware inside the
// layer. The layers are go-sdk middleware that act on tools/call and pass
// every other method through.
//
// On the wire, a refusal reads:
//
//	{"success":false,"error_type":"execution_failed","tool":"shop_search",
//	 "message":"Rate limit reached: this server accepts 5 calls per second from one caller, in bursts of at most 5.",
//	 "next_steps":["Wait 200 ms (retry_after_ms), then repeat this call unchanged; calling sooner will be refused again."],
//	 "retryable":true,"retry_after_ms":200}
//
// # Place in the chain
//
// Pass them to gosdk.Middleware with gosdk.WithLimits, cheapest refusal
// first:
//
//	server.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(
//		limit.Rate(10, 20),
//		limit.Concurrency(8, limit.WithMaxWait(0)),
//		limit.Timeout(5*time.Second),
//	)))
//
// That puts them inside the Middleware's recovery and rendering, as
// middleware.WithLimits does on mcp-go:
//
//	log → recover → redact → envelope → Rate → Concurrency → Timeout → [your middleware] → go-sdk → handler
//
// Inside is required for Timeout: go-sdk recovers no panic, so a handler's
// panic, which Timeout raises again in the caller's goroutine, must meet
// the Middleware's recovery on its way out. Refusals are rendered with the
// Middleware's configuration (its mappings, next steps, redactor), through
// gosdk.ErrorResult. Used alone, outside gosdk.Middleware, Rate and
// Concurrency still answer with envelopes, rendered with the defaults.
//
// # Whom Rate counts
//
// A rate limit is only as good as its key: a client that can pick a new
// key gets a new budget. [DefaultKey] uses, in order:
//
//  1. req.Extra.TokenInfo.UserID, the user go-sdk's auth.RequireBearerToken
//     verified, which the streamable HTTP transport puts on every request;
//  2. a principal named with [ContextWithPrincipal], else the remote
//     address named with [ContextWithRemoteAddr] or [HTTPHandler];
//  3. else one bucket shared by every caller: safe, since no call escapes
//     it, and over stdio, with one client per process, the right key.
//
// It never uses the MCP session, for the reason the mcp-go front does not,
// although go-sdk guards its session IDs better than mcp-go does: its
// stateful streamable server issues them itself (crypto/rand) and answers
// an ID it did not issue with HTTP 404 before any middleware runs, so a
// client cannot invent one. But a session it issues costs the client one
// initialize request, so a bucket per session is a fresh budget per
// initialize; a stateless server makes a session per request; and with the
// allowsessionsinstateless compatibility setting, a stateless server takes
// the client's Mcp-Session-Id as it is. Users and addresses are what a
// client cannot mint, so they are the key.
//
// Over streamable HTTP without a token, name the address:
//
//	handler := mcp.NewStreamableHTTPHandler(getServer, nil)
//	http.ListenAndServe(addr, limit.HTTPHandler(handler))
//
// go-sdk keeps the context values of the request that opened a session
// for every call in it, so each call is keyed by the address that opened
// its session.
//
// # Several replicas
//
// The buckets are in process memory by default ([MemoryStore]), so N
// replicas behind a load balancer allow N times the rate. [WithStore]
// keeps them where every replica shares them, such as Redis
// (github.com/mcpguard/mcpguard/redisstore, its own module). Each store
// call has a deadline ([WithStoreTimeout], default [DefaultStoreTimeout]);
// a call the store does not decide in time is decided by a bucket of the
// same rate for its key in this process (the default: a flood that makes
// the store miss its deadline gains nothing; [WithStoreReplicas] gives
// each replica its share), refused with a retryable envelope once the
// store is down ([WithFailClosed]), or allowed ([WithFailOpen]), and
// either way handed to [WithOnStoreUnavailable]'s function. The calls
// after one the store missed do not wait for it: they are decided the
// same way at once while a probe in the background asks the store again,
// until it answers. An outage is logged once when it starts, then with a
// count, and once when it ends. See docs/replicas.md.
//
// # Repeated failures
//
// gosdk.Middleware has a repeated-failure guard (see gosdk.Repeats): once
// the identical call of a caller (its principal, else its session or
// connection) has failed 3 times in a way it cannot overcome unchanged,
// the next identical call is held back for a short wait (1 s doubling to
// 1 min), retryable, until any call of the caller succeeds. [Repeats]
// builds another, with its own count, window, backoff
// ([WithRepeatBackoff]), caller key ([WithKey]) or a store every replica
// shares ([WithRepeatStore]), for gosdk.WithRepeats.
//
// # Only tools the server has
//
// go-sdk runs receiving middleware before it looks the tool up, so the
// name in a tools/call request may be one the client invented. gosdk's
// Middleware answers a call of a tool the server's listing does not name
// before any limit ("unknown tool", from go-sdk), so such a call takes no
// token; a call it cannot list the tools for (no session) still reaches
// the limits. Per-tool
// state ([WithPerTool]) is therefore made only for names the server has:
// those a tools/list result passing through the layer listed, or that a
// call succeeded for. Until then a name shares the state of the names not
// seen yet: an invented name costs no memory, and never spends a real
// tool's budget. Agents list tools before they call them, so in practice
// every tool has its own state from its first call.
//
// # Timeout and Concurrency together
//
// Go cannot stop a goroutine, so a handler that ignores its context runs
// on after [Timeout] has answered its caller. Concurrency frees the slot
// of such a call only when its handler really returns, and refuses new
// calls meanwhile, with retry_after_ms, so that with n = 2 twelve calls to
// a stuck backend leave at most two handlers on it, in either order of the
// two layers. Keep layers between the two from replacing Timeout's answer
// with another result: that answer is how Concurrency outside recognises a
// handler still running.
//
// # One core
//
// What the layers decide (the buckets and their eviction, the slots, the
// deadline, the refusals and their wording, the default key) lives once,
// without an SDK, in github.com/mcpguard/mcpguard/core/limit, the core the
// mcp-go front uses too; this package only reads go-sdk's request and
// renders with gosdk.ErrorResult.
package limit
