// Package wire is the core's home for reading untrusted JSON that more
// than one consumer must read alike. It holds the canonical form of a
// JSON value and its digest, so that the mcp-go front, the go-sdk front
// and mcpguard-proxy name "the same arguments" with the same bytes.
//
// # The canonical form
//
// [Canonical] writes a JSON value in the form of RFC 8785 (the JSON
// Canonicalization Scheme): no white space, object members sorted by the
// UTF-16 code units of their names, strings with only the escapes JCS
// keeps. One rule differs, on purpose: numbers are exact. JCS formats a
// number as an IEEE 754 double, so two integers past 2^53 that round to
// the same double would be one value; here a number keeps every digit it
// was written with, and only its spelling is made canonical (1, 1.0,
// 10e-1 and 0.1e1 are all written 1; -0 is 0). For every number a double
// holds exactly in its shortest spelling, the output is JCS's, byte for
// byte.
//
// A value that is not valid JSON, holds invalid UTF-8 or a lone
// surrogate escape, an object with two members whose names are equal or
// equal but for case ([Fold]: readers disagree on which one counts), or
// is nested deeper than [MaxDepth], has no canonical form: [Canonical]
// returns an error, and a consumer treats the value as unreadable.
//
// [Digest] is the SHA-256 of a tool's name and its arguments' canonical
// form: the one name of a call for the repeated-failure guard.
// [ArgumentsDigest], of the arguments alone, is what a sealed
// requestState is bound to. Both are shared between replicas (a Redis
// store's fields, a state sealed by one and opened by another), so their
// bytes do not change without a new version of what holds them.
//
// # The case fold
//
// encoding/json matches an object's member names to a struct's fields
// whatever their case, by unicode's simple folding: the Kelvin sign is k
// and the long s is s there, the dotted and dotless i are not i. [Fold],
// [FoldsAs], [HasPrefixFold], [ContainsFold] and [DistinctFolds] are that
// fold, the only one in mcpguard: core/declared's member check, core/pin,
// and mcpguard-proxy's readers and its scans of results for the names it
// acts on use it.
package wire
