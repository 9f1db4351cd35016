package leak

import "strings"

// A JSON Pointer into a JSON Schema (/properties/entities/items/0) looks
// like an absolute path, and a validator names the rule an argument broke
// with one: go-sdk's `validating /properties/entities: type: 12345 has
// type "integer"`. It is not a file path, and erasing it leaves the agent
// unable to tell which argument was wrong. A path is read as a schema
// pointer only when every segment is where the schema grammar puts it: a
// keyword, then a member name, an index or another keyword as that
// keyword takes.

// What each keyword takes after it, in a pointer.
const (
	takesSchema = iota + 1 // a subschema: items, not, additionalProperties
	takesName              // a member name, then a subschema: properties, $defs
	takesIndex             // an index, then a subschema: allOf, prefixItems
	takesLeaf              // nothing, or an index into its value: type, enum, required
)

var schemaKeywords = map[string]int{
	"properties": takesName, "patternProperties": takesName, "$defs": takesName, "definitions": takesName,
	"dependentSchemas": takesName, "dependencies": takesName,
	"allOf": takesIndex, "anyOf": takesIndex, "oneOf": takesIndex, "prefixItems": takesIndex,
	"items": takesSchema, "additionalItems": takesSchema, "additionalProperties": takesSchema, "not": takesSchema,
	"if": takesSchema, "then": takesSchema, "else": takesSchema, "contains": takesSchema, "propertyNames": takesSchema,
	"unevaluatedProperties": takesSchema, "unevaluatedItems": takesSchema, "contentSchema": takesSchema,
	"type": takesLeaf, "enum": takesLeaf, "const": takesLeaf, "required": takesLeaf, "format": takesLeaf, "pattern": takesLeaf,
	"minimum": takesLeaf, "maximum": takesLeaf, "exclusiveMinimum": takesLeaf, "exclusiveMaximum": takesLeaf,
	"multipleOf": takesLeaf, "minLength": takesLeaf, "maxLength": takesLeaf, "minItems": takesLeaf, "maxItems": takesLeaf,
	"uniqueItems": takesLeaf, "minProperties": takesLeaf, "maxProperties": takesLeaf, "minContains": takesLeaf,
	"maxContains": takesLeaf, "dependentRequired": takesLeaf, "$ref": takesLeaf, "default": takesLeaf, "examples": takesLeaf,
}

// IsSchemaPointer reports whether p, which starts with "/", is a JSON
// Pointer into a JSON Schema: /properties/entities, /items/0/required,
// /$defs/Entity/properties/name. A file path is not: /etc/passwd,
// /srv/app/items/x.json.
func IsSchemaPointer(p string) bool {
	if len(p) < 2 || p[0] != '/' || len(p) > 1024 {
		return false
	}
	segs := strings.Split(p[1:], "/")
	for i := 0; i < len(segs); i++ {
		takes, ok := schemaKeywords[segs[i]]
		if !ok {
			return false
		}
		switch takes {
		case takesName:
			i++ // the member name, any text
		case takesIndex:
			if i+1 < len(segs) && isIndex(segs[i+1]) {
				i++
			}
		case takesSchema:
			if segs[i] == "items" && i+1 < len(segs) && isIndex(segs[i+1]) {
				i++ // draft 4-7's array form
			}
		case takesLeaf:
			return i == len(segs)-1 || i == len(segs)-2 && isIndex(segs[i+1])
		}
	}
	return true
}

func isIndex(s string) bool {
	if s == "" || len(s) > 10 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// notSchemaPointer vets a paths/unix match: false when the path it holds
// (after the character that opened it) is a schema pointer.
func notSchemaPointer(m string) bool {
	if i := strings.IndexByte(m, '/'); i >= 0 {
		return !IsSchemaPointer(m[i:])
	}
	return true
}
