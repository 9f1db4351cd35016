package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

// fieldErrors turns validator/v10's errors into field errors an agent can
// act on: JSON paths, the schema's terms, up to limit violations, and
// counts the rest. Errors under a path that binding already reported are
// left out: their value was never bound, so validator/v10 only saw a zero.
func (p *plan) fieldErrors(err error, bad []string, raw []byte, limit int, red *redact.Redactor) (out []envelope.FieldError, more int) {
	ve := validationErrors(err)
	if len(ve) == 0 {
		return nil, 0
	}
	// Decoded again, on this failure path only, to tell a member that was
	// sent from one that was left out.
	var doc any = map[string]any{}
	var d any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers beyond float64 are members too
	// No arguments at all is io.EOF, and doc stays an empty object.
	if dec.Decode(&d) == nil && d != nil {
		doc = d
	}
	out = make([]envelope.FieldError, 0, min(len(ve), max(limit, 0)))
	for _, fe := range ve {
		r := resolveIn(p.root, fe.StructNamespace(), doc)
		if under(r.path, bad) {
			continue
		}
		if len(out) >= limit {
			more++
			continue
		}
		out = append(out, p.describe(fe, r, red))
	}
	return out, more
}

func under(path string, bad []string) bool {
	for _, b := range bad {
		if path == b || b == "" || strings.HasPrefix(path, b) && (path[len(b)] == '.' || path[len(b)] == '[') {
			return true
		}
	}
	return false
}

// describe explains one violation. Values are previewed only when short
// enough to be useful, after redaction, and never for a secret-named field.
func (p *plan) describe(fe validator.FieldError, r resolved, red *redact.Redactor) envelope.FieldError {
	name := orArgs(r.path)
	tag := fe.Tag()
	out := envelope.FieldError{Field: r.path, Rule: tag, Param: fe.Param()}
	secret := r.field != nil && r.field.secret
	msg, showValue := p.message(fe, name, secret, &out)
	if r.absent && tag != "required" && r.path != "" {
		// The agent left the member out; validator/v10 saw its zero.
		msg = fmt.Sprintf("%s is required and %s", name, strings.TrimPrefix(msg, name+" "))
		showValue = false
	}
	if showValue && !secret {
		if v := preview(fe.Value(), red); v != "" {
			msg += " (got " + v + ")"
		}
	}
	if out.Suggestion != "" {
		msg += fmt.Sprintf("; did you mean %q?", out.Suggestion)
	}
	out.Message = msg
	return out
}

// boundWords are the words of each bound tag, for a number and for a
// length (a string's characters, an array's items, an object's entries).
var boundWords = map[string][2]string{
	"min": {"be at least", "at least"}, "gte": {"be at least", "at least"},
	"max": {"be at most", "at most"}, "lte": {"be at most", "at most"},
	"gt": {"be greater than", "more than"}, "lt": {"be less than", "fewer than"},
	"len": {"equal", "exactly"},
}

// message says what name breaks, in the schema's terms, and whether the
// value's preview helps the agent. It sets out's param, allowed values
// and suggestion where the rule has them.
func (p *plan) message(fe validator.FieldError, name string, secret bool, out *envelope.FieldError) (msg string, showValue bool) {
	tag, param := fe.Tag(), fe.Param()
	if words, ok := boundWords[tag]; ok {
		if unit := units(fe.Kind()); unit != "" {
			return fmt.Sprintf("%s must %s %s %s %s", name, verb(unit), words[1], param, counted(unit, param)), true
		}
		return fmt.Sprintf("%s must %s %s", name, words[0], param), true
	}
	switch tag {
	case "required":
		if fe.Kind() == reflect.String {
			return name + " is required and must not be empty", false
		}
		return name + " is required", false
	case "eq":
		return fmt.Sprintf("%s must equal %s", name, strconv.Quote(param)), true
	case "ne":
		return fmt.Sprintf("%s must not equal %s", name, strconv.Quote(param)), true
	case "oneof":
		out.Param = ""
		out.Allowed = oneofValues(param)
		if s, ok := fe.Value().(string); ok && !secret {
			out.Suggestion = suggest(s, out.Allowed)
		}
		return fmt.Sprintf("%s must be one of: %s", name, strings.Join(out.Allowed, ", ")), true
	case "unique":
		return name + " must not contain duplicate items", false
	case "email":
		return name + " must be an email address", true
	case "uuid":
		out.Param = bakedPatterns["uuid"]
		return name + " must be a UUID such as 123e4567-e89b-12d3-a456-426614174000", true
	case "url":
		return name + " must be an absolute URL such as https://example.com/", true
	case "datetime":
		return fmt.Sprintf("%s must be a date/time in the Go layout %s", name, param), true
	case "alpha", "alphanum", "numeric", "number", "hexadecimal":
		out.Param = bakedPatterns[tag]
		return fmt.Sprintf("%s must match the pattern %s", name, out.Param), true
	}
	if np := p.v.pattern(fe.ActualTag()); np != nil {
		out.Rule, out.Param = "pattern", np.expr
		return fmt.Sprintf("%s must match the pattern %s", name, np.expr), true
	}
	if param != "" {
		return fmt.Sprintf("%s failed the %s=%s check", name, tag, param), true
	}
	return fmt.Sprintf("%s failed the %s check", name, tag), true
}

func units(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "characters"
	case reflect.Slice, reflect.Array:
		return "items"
	case reflect.Map:
		return "entries"
	}
	return ""
}

// counted is unit in the number param calls for: "at least 1 item",
// "at least 2 items".
func counted(unit, param string) string {
	if param != "1" {
		return unit
	}
	if unit == "entries" {
		return "entry"
	}
	return strings.TrimSuffix(unit, "s")
}
