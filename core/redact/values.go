package redact

import (
	"encoding/json"
	"maps"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// RawJSON redacts encoded JSON (structured content sent as bytes): strings
// are redacted and the values of secret-named members masked. It returns raw
// itself, and false, when nothing changed.
func (r *Redactor) RawJSON(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return raw, false
	}
	out, ok := r.JSON(string(raw))
	if !ok {
		// Not an object or array: mcp-go would send it as is. A scalar
		// string still carries text.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return raw, false
		}
		b, _ := json.Marshal(r.String(s))
		out = string(b)
	}
	if out == string(raw) {
		return raw, false
	}
	return json.RawMessage(out), true
}

// Value returns decoded JSON-like data (structured content, _meta fields)
// with its strings redacted and the values of secret-named members masked,
// copying only what changes; it returns v itself, and false, when nothing
// changed. It is what an SDK front uses for every non-text result position.
func (r *Redactor) Value(v any) (any, bool) { return r.value(v, false, 0) }

// value returns decoded JSON-like data with its strings redacted and the
// values of secret-named members masked, copying only what changes. Other
// Go values (structs, typed maps) go through their JSON encoding.
func (r *Redactor) value(v any, secretKey bool, depth int) (any, bool) {
	if depth > maxJSONDepth {
		return Placeholder, true // too deep to check is too deep to send
	}
	switch x := v.(type) {
	case nil, bool:
		return v, false
	case string:
		if secretKey && x != "" && x != Placeholder {
			return Placeholder, true
		}
		if red := r.String(x); red != x {
			return red, true
		}
		return v, false // v, not x: boxing x again would allocate
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		if secretKey {
			return Placeholder, true
		}
		return v, false
	case map[string]any:
		if out, ok := r.object(x, secretKey, depth); ok {
			return out, true
		}
		return v, false
	case []any:
		if out, ok := r.list(x, secretKey, depth); ok {
			return out, true
		}
		return v, false
	case json.RawMessage:
		if secretKey {
			return Placeholder, true
		}
		return r.RawJSON(x)
	}
	if secretKey {
		return Placeholder, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v, false // what cannot be encoded cannot be sent; mcp-go reports it
	}
	out, changed := r.RawJSON(b)
	if !changed {
		return v, false
	}
	return out, true
}

func (r *Redactor) object(x map[string]any, secretKey bool, depth int) (any, bool) {
	if secretKey && len(x) > 0 {
		return Placeholder, true
	}
	var out map[string]any
	for k, e := range x {
		nv, changed := r.value(e, leak.IsSecretKey(k), depth+1)
		nk := r.String(k)
		if !changed && nk == k {
			continue
		}
		if out == nil {
			out = maps.Clone(x)
		}
		delete(out, k)
		out[nk] = nv
	}
	if out == nil {
		return nil, false
	}
	return out, true
}

func (r *Redactor) list(x []any, secretKey bool, depth int) (any, bool) {
	if secretKey && len(x) > 0 {
		return Placeholder, true
	}
	var out []any
	for i, e := range x {
		nv, changed := r.value(e, false, depth+1)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]any(nil), x...)
		}
		out[i] = nv
	}
	if out == nil {
		return nil, false
	}
	return out, true
}

// Items returns a copy of items in which every element that redact changed
// is replaced, or nil when it changed none; items itself is never
// modified. The SDK fronts walk their result's content lists with it.
func Items[T any](items []T, redact func(T) (T, bool)) []T {
	var out []T
	for i, item := range items {
		red, changed := redact(item)
		if !changed {
			continue
		}
		if out == nil {
			out = make([]T, len(items))
			copy(out, items)
		}
		out[i] = red
	}
	return out
}
