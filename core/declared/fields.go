package declared

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
	"github.com/mcpguard/mcpguard/core/redact"
)

// maxAllowed bounds the allowed values one field error lists, whatever
// the size of the schema's enum; maxSuggestScan bounds the values a
// suggestion is searched among.
const (
	maxAllowed     = 20
	maxSuggestScan = 1000
)

// describer turns the JSON Schema library's error tree into the field
// errors core/validate's Binder.Bind gives: JSON paths as the agent wrote them, the rule
// in validate's vocabulary, its bound, allowed values and a suggestion.
type describer struct {
	doc    any
	names  []string
	red    *redact.Redactor
	fields []envelope.FieldError
	more   int
}

// leaves records every leaf of the tree, up to MaxFieldErrors. The tree's
// depth is the schema's, which compilation bounds.
func (r *describer) leaves(e *jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		r.leaf(e)
		return
	}
	for _, c := range e.Causes {
		r.leaves(c)
	}
}

// add records a field error. The library's errors come in no set order
// (properties are a map), so the fields are sorted by path and capped at
// MaxFieldErrors once all are in (sorted).
func (r *describer) add(fe envelope.FieldError) {
	fe.Param = fields.Clip(fe.Param, fields.MaxMessageBytes)
	r.fields = append(r.fields, fe)
}

// sorted orders the fields by path, the library's order kept within a
// path, lists each once (the branches of an anyOf or oneOf often fail
// alike), and keeps the first MaxFieldErrors, counting the rest.
func (r *describer) sorted() {
	slices.SortStableFunc(r.fields, func(a, b envelope.FieldError) int { return strings.Compare(a.Field, b.Field) })
	type said struct{ field, rule, param, message string }
	seen := make(map[said]bool, len(r.fields))
	r.fields = slices.DeleteFunc(r.fields, func(f envelope.FieldError) bool {
		k := said{f.Field, f.Rule, f.Param, f.Message}
		dup := seen[k]
		seen[k] = true
		return dup
	})
	kept := min(len(r.fields), MaxFieldErrors)
	r.more += len(r.fields) - kept
	r.fields = r.fields[:kept]
}

func (r *describer) leaf(e *jsonschema.ValidationError) {
	path, v, secret := r.locate(e.InstanceLocation)
	name := fields.OrArgs(path)
	switch k := e.ErrorKind.(type) {
	case *jskind.Required:
		for _, m := range k.Missing {
			p := fields.PathKey(path, m)
			r.add(envelope.FieldError{Field: p, Rule: "required", Message: p + " is required"})
		}
	case *jskind.AdditionalProperties:
		for _, m := range k.Properties {
			r.add(r.unknown(path, m))
		}
	case *jskind.Enum:
		r.add(r.enum(path, name, k.Want, v, secret))
	default:
		fe := envelope.FieldError{Field: path}
		msg, show := r.explain(e.ErrorKind, name, &fe)
		if show && !secret {
			if p := r.preview(v); p != "" {
				msg += " (got " + p + ")"
			}
		}
		fe.Message = msg
		r.add(fe)
	}
}

// explain sets fe's rule and param and says what name breaks.
func (r *describer) explain(k jsonschema.ErrorKind, name string, fe *envelope.FieldError) (msg string, show bool) {
	switch k := k.(type) {
	case *jskind.Type:
		fe.Rule, fe.Param = "type", strings.Join(k.Want, "|")
		return fmt.Sprintf("%s must be %s, not %s", name, typeWords(k.Want), article(k.Got)), false
	case *jskind.Minimum:
		return bound(fe, "min", name, "be at least", k.Want), true
	case *jskind.Maximum:
		return bound(fe, "max", name, "be at most", k.Want), true
	case *jskind.ExclusiveMinimum:
		return bound(fe, "gt", name, "be greater than", k.Want), true
	case *jskind.ExclusiveMaximum:
		return bound(fe, "lt", name, "be less than", k.Want), true
	case *jskind.MultipleOf:
		return bound(fe, "multipleOf", name, "be a multiple of", k.Want), true
	case *jskind.MinLength:
		return count(fe, "min", name, "at least", k.Want, "characters"), true
	case *jskind.MaxLength:
		return count(fe, "max", name, "at most", k.Want, "characters"), true
	case *jskind.MinItems:
		return count(fe, "min", name, "at least", k.Want, "items"), false
	case *jskind.MaxItems:
		return count(fe, "max", name, "at most", k.Want, "items"), false
	case *jskind.MinProperties:
		return count(fe, "min", name, "at least", k.Want, "entries"), false
	case *jskind.MaxProperties:
		return count(fe, "max", name, "at most", k.Want, "entries"), false
	case *jskind.Pattern:
		fe.Rule, fe.Param = "pattern", k.Want
		return fmt.Sprintf("%s must match the pattern %s", name, fields.Clip(k.Want, 120)), true
	case *jskind.Format:
		fe.Rule, fe.Param = "format", k.Want
		return fmt.Sprintf("%s must be a valid %s", name, k.Want), true
	case *jskind.UniqueItems:
		fe.Rule = "unique"
		return name + " must not contain duplicate items", false
	case *jskind.Const:
		fe.Rule = "eq"
		fe.Param = jsonText(k.Want)
		return fmt.Sprintf("%s must equal %s", name, fields.Clip(fe.Param, 120)), true
	case *jskind.FalseSchema:
		fe.Rule = "unknown"
		return name + " is not allowed by this tool's input schema", false
	}
	fe.Rule = "schema"
	if kp := k.KeywordPath(); len(kp) > 0 {
		fe.Rule = kp[0]
	}
	return fmt.Sprintf("%s does not match the %s of this tool's input schema", name, fe.Rule), false
}

func bound(fe *envelope.FieldError, rule, name, words string, want *big.Rat) string {
	fe.Rule, fe.Param = rule, ratText(want)
	return fmt.Sprintf("%s must %s %s", name, words, fe.Param)
}

func count(fe *envelope.FieldError, rule, name, words string, want int, unit string) string {
	fe.Rule, fe.Param = rule, strconv.Itoa(want)
	return fmt.Sprintf("%s must %s %s %d %s", name, fields.Verb(unit), words, want, unit)
}

func (r *describer) unknown(path, member string) envelope.FieldError {
	p := fields.PathKey(path, member)
	fe := envelope.FieldError{Field: p, Rule: "unknown", Message: fields.UnknownMessage(path, p)}
	if path == "" {
		// No declared names (nil): no allowed list, no suggestion.
		fe.Allowed = slices.Clone(r.names[:min(len(r.names), maxAllowed)])
		if s := fields.Suggest(member, r.names); s != "" {
			fe.Suggestion = s
			fe.Message += fmt.Sprintf("; did you mean %q?", s)
		}
	}
	return fe
}

func (r *describer) enum(path, name string, want []any, v any, secret bool) envelope.FieldError {
	all := make([]string, 0, min(len(want), maxSuggestScan))
	for _, w := range want[:min(len(want), maxSuggestScan)] {
		if s, ok := w.(string); ok {
			all = append(all, s)
		} else {
			all = append(all, jsonText(w))
		}
	}
	fe := envelope.FieldError{Field: path, Rule: "oneof", Allowed: all[:min(len(all), maxAllowed)]}
	listed := strings.Join(fe.Allowed, ", ")
	if len(want) > len(fe.Allowed) {
		listed += fmt.Sprintf(", … (%d in all)", len(want))
	}
	fe.Message = fmt.Sprintf("%s must be one of: %s", name, listed)
	if secret {
		return fe
	}
	if p := r.preview(v); p != "" {
		fe.Message += " (got " + p + ")"
	}
	if s, ok := v.(string); ok {
		if fe.Suggestion = fields.Suggest(s, all); fe.Suggestion != "" {
			fe.Message += fmt.Sprintf("; did you mean %q?", fe.Suggestion)
		}
	}
	return fe
}

// locate follows an instance location into the document: the path as
// validate writes it (a.b[2]), the value there, and whether a member on
// the way has a secret's name.
func (r *describer) locate(loc []string) (path string, v any, secret bool) {
	v = r.doc
	for _, seg := range loc {
		switch x := v.(type) {
		case []any:
			i, _ := strconv.Atoi(seg)
			path += "[" + strconv.Itoa(i) + "]"
			if i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			path = fields.PathKey(path, seg)
			v = x[seg]
			secret = secret || redact.IsSecretKey(seg)
		default:
			path = fields.PathKey(path, seg)
			v = nil
		}
	}
	return path, v, secret
}

// preview is the short, redacted form of a scalar value that Binder's
// messages show, numbers as the agent wrote them.
func (r *describer) preview(v any) string {
	if n, ok := v.(json.Number); ok {
		return fields.Clip(string(n), 32)
	}
	return fields.Preview(v, r.red)
}

func typeWords(want []string) string {
	words := make([]string, len(want))
	for i, w := range want {
		words[i] = article(w)
	}
	return strings.Join(words, " or ")
}

// article names a JSON type with its article: "an integer", "null".
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

func ratText(x *big.Rat) string {
	if x == nil {
		return ""
	}
	if x.IsInt() {
		return x.Num().String()
	}
	f, _ := x.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
