// Package declared checks a tool call's arguments against the input
// schema the tool itself declares, the one clients see in tools/list, for
// tools written without a bound struct: mcp-go's mcp.WithString and the
// like, go-sdk's low-level Server.AddTool, a hand-written schema, the
// upstream tools mcpguard-proxy fronts. It imports no MCP SDK and no
// struct validator: each front (validate.DeclaredSchemas on mcp-go,
// gosdk.Middleware, the proxy) finds the called tool's schema and hands
// its text to [New], and the call's arguments to [Checker.Check].
//
// # What it guarantees
//
// The handler reads what was checked. [Checker.Check] reads the
// arguments' JSON text, the exact numbers a handler binding with
// encoding/json reads (where an SDK's decoded map holds them as float64),
// and refuses, naming the member, what such a reader would read otherwise
// than the check: a case variant of a declared property ("PATH" beside
// "path"), a member sent twice, two members that differ only in case.
// Cheap keywords (type, length, bounds, enum) run before a pattern, which
// is not run on a value they refuse, and the pattern work of one call is
// bounded. A pattern means what JSON Schema says, ECMA-262 (with the u
// flag, not anchored: \s is ECMA's white space, "." no line terminator),
// run as the RE2 program of the same meaning; one RE2 cannot express
// (lookaround, a backreference) turns off that keyword alone, with
// a warning naming the tool, the property and the keyword. Size and
// nesting are bounded before anything is decoded. A violation is a
// validation_error whose fields list each problem once, by JSON path,
// worded and bounded as core/validate's binder words and bounds them (the
// two share core/internal/fields). A string that is a lossless spelling of
// a declared number, integer or boolean ("5", "true") is converted, and
// the converted arguments returned.
//
// # What it leaves to the fronts
//
// A Checker holds one schema and nothing else: no registry of tools, no
// process-wide state. Which tool is called, which definition of it is
// current, and which tools need no such check because their handler binds
// and checks exactly the declared schema itself (core/validate's
// Binder.Checks, asked by the front only for the tool whose handler is
// that binder) are each front's to know.
package declared
