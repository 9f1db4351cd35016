// Package rpc reads the JSON-RPC messages mcpguard-proxy relays: once,
// with one strict reader, so that what a server receives for a request
// the proxy guards is what the proxy checked. It is the proxy's wire
// reading and imports nothing of the proxy; the proxy's guard, transports
// and tasks are built on it.
//
// A client message is admitted ([ReadClient]) only if every JSON reader
// reads it alike: one valid JSON object, in UTF-8, whose escapes decode to
// valid Unicode, with no object, at any depth (arguments included),
// holding two names that are equal or differ only in case (encoding/json,
// which mcp-go's servers read with, matches names case-insensitively;
// RapidJSON, gjson or jsonparser keep the first of duplicates;
// encoding/json the last). The head's names and a tools/call's params'
// names must be written as MCP spells them. The reader is jsontext's
// (go-json-experiment/json, what encoding/json/v2 is built from), which
// refuses invalid UTF-8 and bad escapes; the names are compared here. A
// tools/call whose only such names are in its arguments is admitted: the
// proxy's guard refuses it as a validation_error naming them, as both SDK
// fronts refuse it. A server's messages, which the client reads and the
// proxy only routes, are read leniently ([Parse]).
//
// Before it, the quick reader (quick.go) reads in one pass the messages
// clients and servers usually write, or declines; it never refuses, and
// FuzzQuickReadsAsRead holds it to the strict reader. The package also
// holds the forms of a JSON-RPC id (ids.go: [IDKey], [WithID], the ids the
// proxy mints, [MintedIDs]) and the framing of stdio and of an HTTP body's
// lines ([LineReader], [Peek]).
package rpc
