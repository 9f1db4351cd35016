// Package e2e holds end-to-end tests of the example shop server with real
// clients: mcp-go's client over stdio and streamable HTTP, the official
// TypeScript SDK client over stdio (e2e/node), and a bounded load and fault
// test over streamable HTTP on loopback.
//
// # What it guarantees
//
// The tests build example/cmd/shop-server with `go build` and talk to the
// real process, so they prove the wire contract where agents meet it:
// every tool failure, panics included, arrives as a result with
// isError: true and a parseable envelope, never as a JSON-RPC error; no
// stack, path or secret reaches a client; the process neither crashes nor
// leaks goroutines; and tools/list carries the constraints derived from
// struct tags.
//
// # Where it sits
//
// Outside everything: it imports no example code and sees only bytes, as a
// client does. It runs with `go test -race ./...` from the repository root.
// The TypeScript test needs `npm ci` in e2e/node first; without
// node_modules it skips, unless CI is set, where it fails.
//
// # Why
//
// A middleware's promises are only worth what real clients observe:
// strict clients validate structured content against output schemas, and
// transports add their own failure modes. Unit tests through HandleMessage
// cannot show either.
package e2e
