package declared

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpguard/mcpguard/core/internal/fields"
)

// convert returns a copy of doc in which every string that a type error
// says should be a number, an integer or a boolean, and that is a lossless
// spelling of one ("5", "-2.5", "true"), holds that value instead, with the
// paths converted. doc itself, which may be the SDK's own decoded
// arguments, is never modified. Nothing else is coerced: "5.0" is no
// integer's spelling, " 5" no number's, "yes" no boolean's.
//
// An optional member of the arguments sent as null is left out, as
// validate's binder treats it: hosts in strict tool-calling modes fill
// optional members with null, and a handler reading it with a default
// read the default before.
func convert(doc any, verr *jsonschema.ValidationError, required []string) (any, []string) {
	var paths []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		for _, c := range e.Causes {
			walk(c)
		}
		t, ok := e.ErrorKind.(*jskind.Type)
		if !ok || len(paths) >= MaxFieldErrors {
			return
		}
		if t.Got == "null" && len(e.InstanceLocation) == 1 && !slices.Contains(required, e.InstanceLocation[0]) {
			if m, ok := doc.(map[string]any); ok {
				if v, present := m[e.InstanceLocation[0]]; present && v == nil {
					doc = without(m, e.InstanceLocation[0])
					paths = append(paths, fields.PathKey("", e.InstanceLocation[0]))
				}
			}
			return
		}
		if t.Got != "string" {
			return
		}
		var changed bool
		doc, changed = replaceAt(doc, e.InstanceLocation, func(v any) (any, bool) { return spelled(v, t.Want) })
		if changed {
			r := describer{doc: doc}
			p, _, _ := r.locate(e.InstanceLocation)
			paths = append(paths, fields.OrArgs(p))
		}
	}
	walk(verr)
	return doc, paths
}

// spelled returns the value of the declared type that the string v spells
// exactly, trying the declared types in order.
func spelled(v any, want []string) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	for _, w := range want {
		switch w {
		case "boolean":
			if s == "true" || s == "false" {
				return s == "true", true
			}
		case "integer":
			if number(s) && !strings.ContainsAny(s, ".eE") {
				return json.Number(s), true
			}
		case "number":
			if number(s) {
				return json.Number(s), true
			}
		}
	}
	return nil, false
}

// number reports s that is a JSON number's text, by encoding/json's
// grammar: what a handler binding the converted arguments reads.
func number(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' &&
		json.Valid([]byte(s)) // a number starts with - or a digit, ends with a digit, and holds no space
}

// replaceAt returns doc with the value at loc replaced by what fn makes of
// it, copying the objects and arrays on the way rather than modifying them.
func replaceAt(doc any, loc []string, fn func(any) (any, bool)) (any, bool) {
	if len(loc) == 0 {
		return fn(doc)
	}
	switch x := doc.(type) {
	case map[string]any:
		child, ok := x[loc[0]]
		if !ok {
			return doc, false
		}
		nv, changed := replaceAt(child, loc[1:], fn)
		if !changed {
			return doc, false
		}
		cp := make(map[string]any, len(x))
		for k, v := range x {
			cp[k] = v
		}
		cp[loc[0]] = nv
		return cp, true
	case []any:
		i, err := strconv.Atoi(loc[0])
		if err != nil || i < 0 || i >= len(x) {
			return doc, false
		}
		nv, changed := replaceAt(x[i], loc[1:], fn)
		if !changed {
			return doc, false
		}
		cp := append([]any(nil), x...)
		cp[i] = nv
		return cp, true
	}
	return doc, false
}

// without is a copy of m without key.
func without(m map[string]any, key string) map[string]any {
	cp := maps.Clone(m)
	delete(cp, key)
	return cp
}
