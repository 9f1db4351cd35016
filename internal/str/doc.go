// Package str holds mcpguard's one way to cut a string to a length and
// its one edit distance, for every module that quotes text it does not
// control (messages, paths, server output) or suggests a near name.
//
// A cut is counted in bytes, the unit every bound on a response is in, and
// never splits a UTF-8 sequence: the text that reaches a client or a log
// stays valid wherever the input was. [Distance] counts runes, so that a
// typo in a non-ASCII name is one edit.
package str
