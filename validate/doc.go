// Package validate makes one Go struct the single source of truth for a
// tool's arguments: the JSON Schema clients see in tools/list, and the
// check the server runs on every call.
//
//	type SearchArgs struct {
//		Query    string `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
//		Category string `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
//		Limit    int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
//		CardID   string `json:"card_id,omitempty" validate:"omitempty,card_id"`
//	}
//
//	validate.RegisterPattern("card_id", `[A-Z]{2}-[0-9]{4}`)
//	tool := mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]())
//	s.AddTool(tool, middleware.Wrap(h, validate.Args[SearchArgs]()))
//
// # What it guarantees
//
// [Args] binds a call's arguments into the struct strictly (unknown
// members, wrong JSON types, members that match only case-insensitively,
// nulls and absence for required members, non-object arguments are refused; size
// and nesting are bounded before anything is decoded), validates them
// with validator/v10, and either hands the typed value to the handler
// ([ArgsFrom], [Handler]) or answers with a validation_error envelope. The
// envelope's "fields" lists every violation by JSON path, as the agent
// wrote it ("filters[2].name"), with the rule, its bound as the schema
// states it, the allowed values of an enumeration, and the closest one
// when the agent nearly got it right ("ai/ml" suggests "AI/ML"). Values
// are never echoed beyond a short redacted preview, and not at all for
// secret-named fields.
//
// [InputSchema] advertises the schema derived from the same tags:
// required members, enum, bounds, lengths, item counts, uniqueItems,
// formats, named patterns, nested objects and additionalProperties: false.
// A differential test holds the schema, compiled by a JSON Schema
// validator, and Args to the same verdict on generated arguments, nulls
// and zeros included. A tag the schema cannot state is named in the
// property's description and listed by [RuntimeOnly]; it is never
// silently dropped.
//
// # Schema conventions
//
// Presence follows Go and the two Go SDKs. A field without omitempty or
// omitzero that is not a pointer is required: listed in "required" and
// refused when absent, though its zero value is allowed;
// validate:"required" also refuses the zero value, as validator/v10 does.
// Any other field is optional, and advertises its constraint as is, with
// no anyOf, const or null around it:
//
//	Status string `json:"status,omitempty" validate:"omitempty,oneof=open closed"`  // {"type":"string","enum":["open","closed"]}
//	Limit  int    `json:"limit,omitempty" validate:"omitempty,min=1,max=100"`       // {"type":"integer","minimum":1,"maximum":100}
//
// An optional member sent as null, or as its zero value where its tag
// allows the zero (omitempty), is treated as absent: the one deliberate
// leniency, because hosts in strict tool-calling modes fill optional
// members with null and models send "" or 0 for "not set".
//
// Bounds appear only where they say something: from a tag, or from a
// narrower Go type (int8, uint16, float32, ...; uint has minimum 0). A
// 64-bit integer or a float64 advertises no range, and a number it cannot
// hold is refused when called. json.RawMessage and any fields take any
// JSON value. Embedded structs, by value or by pointer, are flattened as
// encoding/json flattens them. A time.Time field is an RFC 3339
// date-time in the one shape Go and the "date-time" format both accept
// (upper-case T and Z, no leap second, offsets up to 23:59), which its
// schema states as a pattern. The email and url tags, and datetime with
// an RFC 3339 layout, are runtime-only: JSON Schema's formats disagree
// with validator/v10 at the edges (a@b, http://).
//
// # Typed results
//
// [StructuredHandler] returns a typed value as structuredContent, with its
// JSON as the text, and [OutputSchema] advertises the schema derived from
// its type the way encoding/json writes it. A result off that schema is
// never sent: the call is an internal_error with an incident ID.
//
// # Bounds
//
// A validation_error lists at most [MaxFieldErrors] violations, then one
// entry with rule "more" counting the rest; paths, messages, previews and
// keys are clipped; numbers are read in linear time before any
// big-number arithmetic. A failure is therefore a few kilobytes whatever
// the size of the arguments, which [WithMaxBytes] bounds before anything
// is decoded.
//
// Named patterns ([RegisterPattern]) are the one place a regular
// expression lives: the runtime check and the schema's "pattern" come from
// the same anchored expression, restricted to the syntax Go and
// ECMA-262 read alike.
//
// # Where it sits in the chain
//
// Args is a per-tool layer: put it innermost, next to the handler, with
// [github.com/mcpguard/mcpguard/middleware.Wrap] or
// [github.com/mcpguard/mcpguard/middleware.ForTools]. It renders its own
// failures with envelope.ErrorResult, so it is safe without the envelope
// layer; under middleware.Default() its envelopes pass through unchanged.
//
// # Why
//
// Agents call tools with "ai/ml" when the enum says "AI/ML", limit 9999
// when the maximum is 50, and "../../etc/passwd" for an identifier. A
// schema that says all of that lets the model get it right the first time;
// a runtime check that says exactly the same keeps the server safe when it
// does not; and field errors an agent can act on get it right the second
// time. Writing the constraints twice, once in the schema and once in
// code, guarantees that the two drift apart.
//
// Derivation happens once per type; a call costs one linear scan, one
// json.Unmarshal and one validator/v10 pass.
package validate
