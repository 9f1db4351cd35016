// Package validate is the SDK-neutral core of mcpguard's argument
// validation: it makes one Go struct the single source of truth for a
// tool's arguments, the JSON Schema clients see in tools/list and the
// check the server runs on every call. It imports no MCP SDK; each front
// is a thin shell over it:
//
//   - github.com/mcpguard/mcpguard/validate for mark3labs/mcp-go
//     (Args, Handler, StructuredHandler, InputSchema, OutputSchema);
//   - github.com/mcpguard/mcpguard/gosdk for the official go-sdk
//     (gosdk.AddTool).
//
// Both fronts advertise the bytes [Schema] and [OutputSchemaOf] derive,
// and both render the errors [Binder.Bind] returns with their one
// configured envelope renderer, so that a struct is advertised and
// checked identically, and a bad call gets the same validation_error
// envelope with "fields", whichever SDK serves it.
//
// # What it guarantees
//
// [Binder.Bind] binds a call's arguments into the struct strictly
// (unknown members, wrong JSON types, members that match only
// case-insensitively, nulls and absence for required members, non-object
// arguments are refused; size and nesting are bounded before anything is
// decoded) and validates them with validator/v10. A failure is an
// envelope.Error with code validation_error whose fields list every
// violation by JSON path, with the rule, its bound, the allowed values and
// the closest one when the agent nearly got it right. Values are never
// echoed beyond a short redacted preview, and not at all for secret-named
// fields. At most [MaxFieldErrors] violations are listed.
//
// [Schema] states the same tags as JSON Schema: required members, enum,
// bounds, lengths, item counts, uniqueItems, formats, named patterns
// ([RegisterPattern]), nested objects and additionalProperties: false. A
// tag the schema cannot state is named in the property's description and
// listed by [RuntimeOnly]. The schema conventions are described in the
// mcp-go front's package documentation.
//
// [Output] does the same for a typed result: [OutputSchemaOf] is its
// schema as encoding/json writes it, and [Output.Check] refuses a result
// off that schema before anything is sent.
//
// # Declared schemas
//
// The check of the input schema a tool declares itself, for tools
// written without a bound struct, is core/declared's. The two share how a
// failure is worded and bounded (core/internal/fields), so that a bad
// call gets the same validation_error from either. [Binder.Checks]
// reports a schema that is exactly the binder's, for a front that knows
// a tool's handler is that binder and need not check its declared schema
// again.
//
// # Why
//
// Writing the constraints twice, once in the schema and once in code,
// guarantees that the two drift apart; writing them once per SDK does too.
package validate
