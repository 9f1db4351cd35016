// Package pin holds a server's tool definitions to the versions someone
// approved, at run time: a tool whose definition changed after review (a
// "rug pull": a harmless tool rewritten to tell the model to send data
// elsewhere), or that nobody reviewed, is left out of tools/list and its
// calls are refused with an envelope the agent can act on.
//
// # The lockfile
//
// A [Lock] is mcpguard-audit's baseline file (--baseline FILE writes it,
// --check-baseline FILE compares a server with it): for each tool, the
// parts an agent reads of its definition (name, title, description,
// inputSchema, outputSchema, annotations) in RFC 8785 canonical form and
// their SHA-256, one line per tool so a review sees one changed line per
// changed tool. Member order, white space and number spelling are not
// part of a definition: a server that lists the same tool again, in
// another order, matches its pin. A definition two readers could read
// differently has no pin and is held back: a name twice, or two names
// that differ only in case where Go clients decode into structs (the
// definition, its schemas' and its annotations' own members), since
// encoding/json would read {"description":"a","Description":"b"} as "b". A lock edited by hand no longer reads
// ([ReadLock] checks every digest).
//
// # At run time
//
// [New] makes a [Pins] of a lock. Each consumer hands it the definitions
// the server lists ([Pins.Review]) and asks it before a call
// ([Pins.Refusal]):
//
//   - An approved tool is listed and called as before; a definition seen
//     before costs a map lookup and a byte comparison.
//   - A changed or new tool, or one whose definition has no canonical
//     form, is left out of the listing, and a call to it is answered with
//     access_denied, not retryable, naming the tool and telling the agent
//     it awaits approval: never a JSON-RPC error. The operator gets one
//     log line per distinct definition, with the difference.
//
// Approving is writing the lock again (mcpguard-audit --baseline FILE)
// and restarting, or passing the new lock to the consumer.
//
// The package imports no MCP SDK; mcpguard-proxy (--pin FILE) and the
// fronts' pin options are adapters over it.
package pin
