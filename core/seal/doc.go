// Package seal protects the requestState of multi round-trip requests
// (MCP 2026-07-28, SEP-2322) against the client that carries it.
//
// A tool that needs more input answers with resultType "input_required",
// its inputRequests and an opaque requestState; the client retries the
// call with inputResponses and echoes the state. The specification tells
// servers to treat the echo as attacker-controlled: a handler that keeps
// "env=staging" or "approved=false" in its state would otherwise do what
// the client wrote there instead.
//
// A [Sealer] seals every state a server hands out and opens every echo
// before the handler sees it. Guarantees:
//
//   - Confidential and authenticated: AES-256-GCM, a random 96-bit nonce
//     per state, the format version and key id authenticated as associated
//     data. A changed byte does not open ([ErrTampered]). Nonces come from
//     a ChaCha8 generator seeded from crypto/rand for each Sealer.
//   - Bound to its call: the expiry and the SHA-256 of a [Binding] (method,
//     tool name, core/wire's ArgumentsDigest of the arguments, caller, and the
//     Sealer's audience) travel inside the ciphertext. A state replayed on
//     another tool, other arguments or by another caller does not open
//     ([ErrBinding]); nor does one older than its TTL ([ErrExpired]). A
//     replay of the same call within the TTL does open: a retry may be
//     sent again, as the specification allows.
//   - Keyed by a [KeyRing]: the current key seals, older keys still open
//     (rotation); a state sealed under a key the ring lacks, another
//     server's, does not open ([ErrUnknownKey]). Without a configured ring,
//     [New] draws a random key for the process, under an id of its own: a
//     state then opens only in the process that sealed it (elsewhere it is
//     [ErrUnknownKey], logged with a hint that points to the key ring),
//     and replicas behind one address must share a ring ([ParseKeyRing]:
//     lines "kid:base64key", first current).
//   - Bounded: Seal refuses a state over [WithMaxState] (64 KiB by
//     default, [ErrTooLarge]); Open refuses a longer sealed text before
//     decoding it.
//   - Cheap: one allocation to seal (the sealed text) and one to open (the
//     state), buffers pooled.
//
// The reason a state does not open is for the server's log; the SDK fronts
// (middleware.Default on mcp-go, gosdk.Middleware on go-sdk) and
// mcpguard-proxy answer the client with one fixed validation_error
// envelope that tells it to start the call over, never which check failed.
//
// The package imports no MCP SDK.
package seal
