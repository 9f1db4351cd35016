package validate

import (
	"bytes"
	"encoding/json"

	"github.com/mcpguard/mcpguard/core/wire"
)

// Checks reports whether schema is the one the binder derives (the same
// JSON, whatever the order of its members, with or without an empty
// "required"): a tool that declares it and whose handler is this binder
// is checked by the binder, and a front need not check it against its
// declared schema too. Whether the handler is the binder is the front's
// to know: an equal schema alone says nothing about who reads the call.
func (b *Binder[T]) Checks(schema []byte) bool {
	mine, ok := canonicalSchema(b.Schema())
	if !ok {
		return false
	}
	theirs, ok := canonicalSchema(schema)
	return ok && bytes.Equal(mine, theirs)
}

// canonicalSchema is a schema in core/wire's canonical form (members
// sorted, no spaces, numbers by their value, names as they are), without
// empty "required" lists, so that the same schema written by another
// encoder matches.
func canonicalSchema(schema []byte) ([]byte, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, false
	}
	dropEmptyRequired(v)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	c, err := wire.CanonicalDocument(nil, b)
	return c, err == nil
}

// dropEmptyRequired removes "required": [], which says nothing, and which
// one encoder writes where another leaves it out (mcp-go writes it for
// every mcp.NewTool). The recursion is as deep as the schema, which
// encoding/json refuses past 10,000 levels, and a schema is at most
// MaxDeclaredSchemaBytes.
func dropEmptyRequired(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if r, ok := m["required"].([]any); ok && len(r) == 0 {
		delete(m, "required")
	}
	for _, c := range m {
		dropEmptyRequired(c)
	}
}
