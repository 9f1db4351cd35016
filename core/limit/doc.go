// Package limit holds what every SDK front's limit layers decide, once and
// without an SDK: token buckets keyed by what a caller cannot invent, slots
// that bound the handlers running, a deadline that releases the caller of
// a handler that ignores its context, and the envelopes a refused or timed
// out call is answered with. The mcp-go front is
// github.com/mcpguard/mcpguard/limit; its documentation says what the
// layers guarantee to a server.
//
// # What a front does
//
// A front is a few lines per layer: it takes the key and tool from its
// SDK's request, asks, and renders the error it gets with its envelope
// renderer, like any handler error:
//
//	buckets := limit.NewRate(r, burst, limit.DefaultMaxKeys)
//	…
//	if err := buckets.Allow(tool, limit.Key(ctx), time.Now()); err != nil {
//		return render(ctx, req, err) // execution_failed, retryable, retry_after_ms
//	}
//
//	slot, err := slots.Acquire(ctx, tool)
//	if err != nil {
//		return render(ctx, req, err) // a refusal, or ctx.Err()
//	}
//	res, err := next(ctx, req)
//	slot.Release(res) // the result pointer: see below
//
//	return limit.Within(ctx, tool, d, logger, call, answer)
//
// # Options
//
// The options of the layers are here too, once for every front: [Option]
// and the With functions, their defaults and the sentences they panic
// with on bad configuration, all generic in the front's request type R,
// which only a key function reads. A front re-exports them for its
// request (type Option = limit.Option[its request], a one-line With
// function each), evaluates them with [Evaluate] and asks the [Options]
// for what each layer needs: [Options.Rate] the decider, [Options.Slots]
// the slots, [Options.Timeouts] the duration of a tool. [Hold] runs a call
// in a slot.
//
// # Guarantees
//
//   - [Rate]: memory bounded in bytes, at most maxKeys buckets and at most
//     64 bytes of key each (a longer key is kept as its SHA-256 digest); a
//     bucket is evicted only when it is full again, so eviction never
//     hands a caller a fresh burst; an allowed call with a short key does
//     not allocate.
//   - [Key]: the principal ([ContextWithPrincipal]), else the remote
//     address ([ContextWithRemoteAddr], no port, IPv6 as its /64), else
//     one global key; never an MCP session, which a client can mint by
//     inventing an ID or initializing again.
//   - [Slots]: at most n handlers running. A slot released with the answer
//     [Within] gave for a handler that still runs ([Detach]) stays taken
//     until that handler returns, so a timeout never frees a slot early.
//     A slot free at once costs a channel operation and an atomic load.
//   - [Within]: the caller is answered at the deadline; a panic in time is
//     raised again in the caller's goroutine as a [*HandlerPanic]; a late
//     one is logged with an incident ID; no goroutine outlives the
//     handler.
//
// # Holding instead of refusing
//
// A refusal costs an agent a model turn. [Absorb] is the stage every
// consumer runs on a refused call ([RateStage.Admit], [HoldSlot]): a call
// of a client that negotiated multi round-trip requests (MCP 2026-07-28)
// whose wait fits [WithHoldCap] ([DefaultHoldCap]) and its deadline is
// held on a timer until the limit admits it (a token reserved in order in
// process, the same Allow asked again of a shared store), bounded per
// caller ([HoldPerCaller]) and in all ([HoldMax]); a call that finds no
// room to be held is [Shed] where the consumer can answer so (the go-sdk
// front), else refused as before, as is a longer wait and every older
// client's call: a shed call is re-sent at once, so only room can have
// changed by then.
//
// # Stores
//
// [Rate] is the in-process store's buckets. A front given a [Store] asks
// through [Shared] instead, which bounds each store call with a deadline
// and decides by a local bucket of the same key (or fail open, or fail
// closed once the store is down) when the store cannot; a store names
// its buckets with [StoreKey], so that they stay bounded in bytes as the
// in-process ones are. After a store call fails, [Shared] asks the store
// nothing more, and decides at once, until a probe in the background
// finds it answering: a hung store holds one call to its deadline, not
// every call, and its outage is logged once, not per call. [Shared] with
// [MemoryStore] sets no deadline and does not allocate; while a store
// answers, asking whether it is down costs one atomic load. The Redis
// store is github.com/mcpguard/mcpguard/redisstore.
//
// # Repeated failures
//
// [Repeats] is the repeated-failure guard, one stage written here and run
// by every consumer (both fronts' one line and mcpguard-proxy) through a
// [RepeatStage]: a consumer gives it a function that reads a request's
// [RepeatCall] (its [Caller], tool, raw arguments, and whether it echoes a
// requestState), asks [RepeatStage.Admit] before the call and settles the
// ticket with what the client received: nothing to do, and no allocation,
// while [Repeats.Idle]. What it promises:
//
//   - counts belong to one [Caller]: its principal or key, else its MCP
//     session or connection; a caller with neither is never held back;
//   - the same call is the same tool with the same arguments in canonical
//     form (core/wire), exact for big integers;
//   - only failures the identical call cannot overcome while nothing
//     changes count ([Repeated]); never the guard's own answer, a
//     retryable failure, authentication_failed, or a call that echoes a
//     requestState;
//   - any success of the caller, or new credentials, forget its counts;
//   - a call held back is told so, retryable, with retry_after_ms (1 s
//     doubling to 1 min by default), quoting the last real failure;
//   - memory is bounded in all ([DefaultRepeatMaxKeys]) and per caller
//     ([RepeatMaxPerCaller]): a flood evicts its own caller's oldest.
//
// A [RepeatStore] shares the counts between replicas with the same
// meaning.
//
// # Why the answer is the token
//
// Between a timeout and the slots outside it, the one value that travels
// back out is the call's result. [Within] records the pointer it answers
// with while the handler runs on, and [Slot.Release] looks it up: one
// atomic load while no handler is late, no allocation ever, where a value
// carried in the context would cost every call an allocation. A front's
// layers between the two must hand that result on unchanged.
package limit
