// Package redisstore keeps the token buckets of mcpguard's rate limits in
// Redis, so that every replica of a server draws from the same buckets:
// N replicas behind a load balancer allow the rate once, not N times, and
// a caller cannot multiply its budget by spreading calls over replicas.
//
// It is a limit.Store for the WithStore option of both fronts
// (github.com/mcpguard/mcpguard/limit on mcp-go,
// github.com/mcpguard/mcpguard/gosdk/limit on the official go-sdk):
//
//	store, err := redisstore.Open("redis://127.0.0.1:6379", redisstore.WithPrefix("shop:"))
//	if err != nil { … }
//	defer store.Close()
//	limit.Rate(50, 50, limit.WithKey(…), limit.WithStore(store))
//
// It lives in its own module, so that nobody who does not use it gets a
// Redis client (github.com/redis/rueidis) in their module graph.
//
// # Guarantees
//
//   - One round trip per decision: EVALSHA of one Lua script (EVAL when
//     Redis does not have it, after a restart or SCRIPT FLUSH), with the
//     emission interval, the burst and the key as arguments. It decides
//     atomically for every replica and returns the wait until the next
//     token, so retry_after_ms is as exact as in process.
//   - The verdicts of the in-process store: the script is GCRA, which
//     admits exactly what a token bucket of the same rate and burst
//     admits. Time is Redis's own (TIME), so replicas' clocks need not
//     agree.
//   - Bounded Redis memory: a key per bucket in use, named by
//     core/limit.StoreKey (the prefix, then at most 66 bytes whatever the
//     caller sends), holding one integer, and expiring when the bucket is
//     full again, when it is the same as no key. A short key costs about
//     56 bytes of Redis memory (MEMORY USAGE), a hashed long one 120.
//   - Failures are the front's to decide: the store answers an error when
//     Redis is down, hung past the call's deadline (the front's
//     WithStoreTimeout, default 50 ms), or answers something that is not a
//     verdict (a key of another type: [ErrAnswer] or Redis's WRONGTYPE,
//     which wrap core/limit.ErrNoVerdict); the front decides by a local
//     bucket of the call's key (the default), fails open (allows) or
//     closed (refuses with a retryable envelope), and counts it. After a
//     timeout or an error other than a key's, the front asks Redis
//     nothing more, and decides the calls after at once, until a probe in
//     the background finds it answering; it logs the outage once, then
//     with a count, and once when it ends. When Redis is back the client
//     reconnects by itself.
//   - A decision returns by its deadline whatever Redis does: the command
//     runs on a goroutine that holds one of [MaxInFlight] slots until
//     Redis answers or the connection is given up; beyond them, [ErrBusy]
//     at once.
//   - An allowed decision costs two allocations (the key's name and the
//     goroutine's closure) and one loopback round trip.
//
// # Why GCRA, why rueidis
//
// GCRA keeps one number per key (the theoretical arrival time of the next
// call), where a token bucket keeps a count and a timestamp, and that
// number says exactly when the key can expire. rueidis pipelines the
// calls of many goroutines over few connections, which is what a server
// with 50 concurrent callers needs of one Redis, and pools its commands:
// an allowed decision does not allocate in it.
//
// # Testing
//
// Package redistest starts a real redis-server for tests. The tests of
// this package need one: outside CI they skip, with an install hint,
// when redis-server is missing.
package redisstore
