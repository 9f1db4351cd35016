package validate

import (
	"github.com/mcpguard/mcpguard/core/internal/fields"
	"github.com/mcpguard/mcpguard/core/redact"
)

// The field errors' wording and bounds are core/internal/fields', which
// core/declared shares, so that the binder and the declared-schema check
// answer a bad call alike.

var fieldsFail = fields.Fail

func pathKey(path, key string) string             { return fields.PathKey(path, key) }
func orArgs(path string) string                   { return fields.OrArgs(path) }
func unknownMessage(path, name string) string     { return fields.UnknownMessage(path, name) }
func verb(unit string) string                     { return fields.Verb(unit) }
func preview(v any, red *redact.Redactor) string  { return fields.Preview(v, red) }
func suggest(got string, allowed []string) string { return fields.Suggest(got, allowed) }
