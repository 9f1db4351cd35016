// Package limit bounds tool calls in time, rate and concurrency, and
// answers every call it stops with an envelope the agent can act on, never
// with a JSON-RPC error it would not see.
//
// # Guarantees
//
//   - [Timeout]: the handler's context carries a deadline; a call that
//     passes it is answered at the deadline, even when the handler ignores
//     its context, with execution_failed, retryable, and a next step that
//     says how to make the call cheaper.
//   - [Rate]: token buckets from golang.org/x/time/rate, keyed by what a
//     caller cannot invent: its principal, else its remote address, else
//     one global key ([DefaultKey]), or by your [KeyFunc]. A refused call
//     is execution_failed, retryable, with "retry_after_ms" and a next
//     step that says to wait that long. Memory is bounded in bytes however
//     many keys, and however long, callers invent.
//   - [Concurrency]: at most n handlers running; the rest wait up to a
//     bound, then are refused the same way. A handler [Timeout] gave up on
//     still counts until it has returned (see below).
//
// A refused call never reaches the handler. Each layer renders its own
// envelopes with [envelope.ErrorResult], so each is safe alone:
//
//	s.AddTool(tool, middleware.Wrap(h, limit.Timeout(5*time.Second)))
//
// # Whom Rate counts
//
// A rate limit is only as good as its key: a client that can pick a new key
// gets a new budget. [DefaultKey] therefore never uses the MCP session.
// mcp-go's default streamable HTTP server checks only the format of an
// Mcp-Session-Id it did not issue, so a client that invents one per call,
// without initializing, would get a bucket per call; and a session the
// server did issue costs one initialize request, so re-initializing would
// too. What a client cannot mint is who it authenticated as and where it
// connects from, so DefaultKey uses the principal, else the remote
// address, else one bucket shared by every caller. Name them where the
// HTTP request is at hand:
//
//	httpServer := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(
//		func(ctx context.Context, r *http.Request) context.Context {
//			ctx = limit.HTTPContext(ctx, r) // the remote address
//			return limit.ContextWithPrincipal(ctx, userFrom(r))
//		}))
//
// Without either, every call shares the one global bucket: safe, since no
// call escapes it, but one busy caller then spends everyone's budget. Over
// stdio, with one client per process, that is the right key anyway.
//
// # Memory
//
// [Rate] keeps at most [WithMaxKeys] buckets, and each takes a fixed
// number of bytes: a key longer than 64 bytes is kept as its SHA-256
// digest (32 bytes), so a client that sends megabyte-long keys costs what
// one that sends short ones does. SHA-256 rather than a faster seeded
// hash because it is collision-resistant without a secret: no client can
// craft a key that lands in another caller's bucket. It runs only for
// long keys, and costs less than receiving them did. The bound holds at
// every moment, whatever the rate: how slowly a bucket refills decides
// when it may be evicted (a bucket dropped before it is full again would
// hand its caller a fresh burst), never how much memory it takes.
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
// [Repeats] stops agents that repeat a failing call, and never holds back
// a call the handler would now answer otherwise: counts belong to one
// caller (the principal, else the MCP session; never an address, never
// everyone), any success of the caller or new credentials release them,
// and a call held back waits at most a short, doubling time
// ([DefaultRepeatBackoff] to [DefaultRepeatMaxBackoff]), told in
// retry_after_ms. middleware.Default has it, 3 failures forgotten 10
// minutes after the last ([DefaultRepeatFailures], [DefaultRepeatWindow]);
// [WithRepeatStore] shares the counts between replicas. See
// docs/wire-contract.md#repeated-failures.
//
// # Place in the chain
//
// With [middleware.Default], pass them with middleware.WithLimits, which
// puts them inside the envelope layer and outside your own layers:
//
//	Logging → recover → redact → envelope → limits → [hints, validate, …] → handler
//
// recover is outside so that a handler's panic, which [Timeout] raises
// again in the caller's goroutine, still ends as an internal_error with an
// incident ID. Limits come before your layers so that a refused call costs
// as little as possible. Put the cheapest refusal first: Rate, then
// Concurrency, then Timeout.
//
// # Timeout and Concurrency together
//
// Go cannot stop a goroutine, so a handler that ignores its context runs on
// after [Timeout] has answered its caller. If [Concurrency] freed its slot
// with that answer, each timed-out call would leave one more handler
// running and n would bound nothing: with n = 2, twelve calls to a stuck
// backend would leave twelve handlers on it. So Concurrency frees the slot
// of such a call only when its handler really returns, and refuses new
// calls meanwhile, with retry_after_ms, like any call that found no slot:
//
//	middleware.WithLimits(
//		limit.Concurrency(8, limit.WithMaxWait(0)), // at most 8 handlers running, stuck ones included
//		limit.Timeout(5*time.Second),               // each caller answered within 5 s
//	)
//
// Either order is safe. With Concurrency outside (the order above, the one
// we recommend), the timeout measures the handler alone and a call waiting
// for a slot is refused after [WithMaxWait]; Timeout's answer tells
// Concurrency that the handler still runs. With Concurrency inside, it runs
// in Timeout's goroutine and frees the slot when the handler returns by
// itself; a call still waiting for a slot at the deadline is answered as
// timed out. Keep layers between the two from replacing Timeout's answer
// with another result: that answer is how Concurrency outside recognises
// a handler still running. When the late handler returns, its goroutine
// and the one waiting for it end: none is left behind.
//
// # Why
//
// The MCP specification says servers must rate-limit tool invocations.
// Limits answered with a JSON-RPC error (as hand-rolled ones often are, in
// code ranges the specification reserves) never reach the model, so the
// agent cannot know it should wait; and a slow tool without a timeout holds
// its caller until the client gives up.
//
// # One core
//
// What the layers decide (the buckets and their eviction, the slots, the
// deadline, the refusals and their wording, the default key) lives once,
// without an SDK, in github.com/mcpguard/mcpguard/core/limit; these layers
// only read the mcp-go request and render with [envelope.ErrorResult]. A
// principal or address named with this package's functions is the one the
// core reads.
package limit
