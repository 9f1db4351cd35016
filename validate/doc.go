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
// nulls for non-pointer fields, non-object arguments are refused; size
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
// validator, and Args to the same verdict on generated arguments. A tag
// the schema cannot state is named in the property's description and
// listed by [RuntimeOnly]; it is never silently dropped.
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
