package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/validate"
)

// InputSchema sets a tool's input schema to the one derived from T (see
// [Schema]), for use with mcp.NewTool:
//
//	mcp.NewTool("shop_search", mcp.WithDescription("..."), validate.InputSchema[SearchArgs]())
//
// It keeps the descriptions that jsonschema tags give, as mcp-go's
// WithInputSchema does, and adds what the validate tags say: required
// members, enum, numeric bounds, lengths, item counts, uniqueItems,
// formats, patterns, nested objects and additionalProperties: false. A tag
// JSON Schema cannot state is named in the property's description and
// listed by [RuntimeOnly].
//
// It composes with mcp-go's other tool options in either order: it fills
// the tool's structured InputSchema (T's properties first, in declaration
// order) rather than replacing it, so a property that mcp.WithString and
// the like add before or after is kept. Such a property is not a field of
// T, though, so [Args] for T refuses it as an unknown member: add a field
// to T instead wherever Args checks the tool. A property that both T and
// an earlier option declare panics, as does an earlier raw schema
// (mcp.WithInputSchema, mcp.WithRawInputSchema), which would hide T's.
//
// It panics if T is not a struct or its tags cannot work, when the option
// is built rather than when a client asks.
func InputSchema[T any](opts ...Option) mcp.ToolOption {
	b := core.NewBinder[T](opts...)
	return func(t *mcp.Tool) {
		if t.RawInputSchema != nil {
			panic(fmt.Sprintf("validate: InputSchema[%s] on tool %q: the tool already has a raw input schema "+
				"(mcp.WithInputSchema or mcp.WithRawInputSchema); use only one of them", reflect.TypeFor[T](), t.Name))
		}
		var s mcp.ToolInputSchema
		if err := decodeNumbers(b.Schema(), &s); err != nil {
			panic(fmt.Sprintf("validate: InputSchema[%s]: %v", reflect.TypeFor[T](), err))
		}
		earlier := slices.Sorted(maps.Keys(t.InputSchema.Properties))
		for _, name := range earlier {
			if _, dup := s.Properties[name]; dup {
				panic(fmt.Sprintf("validate: InputSchema[%s] on tool %q: property %q is also declared by an earlier tool option; "+
					"describe it on the struct field (jsonschema and validate tags) and drop the option", reflect.TypeFor[T](), t.Name, name))
			}
			s.Properties[name] = t.InputSchema.Properties[name]
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
		for _, name := range t.InputSchema.Required {
			if !slices.Contains(s.Required, name) {
				s.Required = append(s.Required, name)
			}
		}
		s.Defs = t.InputSchema.Defs
		t.InputSchema = s
	}
}

// decodeNumbers decodes a derived schema keeping numbers exact.
func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
