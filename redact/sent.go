package redact

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// Bounds on what [Redactor.ForCall] remembers of a call's arguments, so a
// huge request costs bounded work: the first strings only, then nothing.
const (
	maxSentStrings = 256
	maxSentBytes   = 64 << 10
	maxSentTokens  = 16 << 10
)

// sent holds the string values a call's arguments carried.
type sent struct {
	strs  []string
	bytes int
}

func (s *sent) contains(m string) bool {
	if m == "" {
		return false
	}
	for _, x := range s.strs {
		if strings.Contains(x, m) {
			return true
		}
	}
	return false
}

func (s *sent) add(v string) bool {
	if len(s.strs) >= maxSentStrings || s.bytes+len(v) > maxSentBytes {
		return false
	}
	if v != "" {
		s.strs = append(s.strs, v)
		s.bytes += len(v)
	}
	return true
}

// ForCall returns a Redactor for the results of one call: rules marked
// [Rule.KeepSent] (the path rules, by default) leave alone what appears
// verbatim in the call's own arguments, since the client sent it. A file
// tool's "open /home/alice/notes/todo.md: not found" keeps the path the
// agent asked for, and still loses any path it did not send. Secrets are
// redacted even when the client sent them: a token in an argument must not
// come back in an error a host may log. Values of secret-named argument
// keys are never remembered.
//
// args is what the request carries: req.GetRawArguments() (json.RawMessage
// on the wire), a map[string]any, or any value that encodes as JSON. Only
// the first 256 strings and 64 KiB are remembered. ForCall returns r itself
// when there is nothing to keep, so it costs nothing on calls without
// arguments.
func (r *Redactor) ForCall(args any) *Redactor {
	if r == nil || args == nil || !r.keepsSent() {
		return r
	}
	s := &sent{}
	switch a := args.(type) {
	case json.RawMessage:
		s.addJSON(a)
	case []byte:
		s.addJSON(a)
	default:
		if !s.addValue(args, false, 0) {
			if b, err := json.Marshal(args); err == nil {
				s.addJSON(b)
			}
		}
	}
	if len(s.strs) == 0 {
		return r
	}
	return &Redactor{rules: r.rules, sent: s}
}

func (r *Redactor) keepsSent() bool {
	for i := range r.rules {
		if r.rules[i].KeepSent {
			return true
		}
	}
	return false
}

// addValue walks decoded JSON. It reports false for a value of another
// type, which the caller encodes and reads as JSON instead.
func (s *sent) addValue(v any, secretKey bool, depth int) bool {
	if depth > maxJSONDepth {
		return true
	}
	switch x := v.(type) {
	case string:
		if !secretKey {
			s.add(x)
		}
	case map[string]any:
		for k, e := range x {
			if !s.addValue(e, leak.IsSecretKey(k), depth+1) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !s.addValue(e, secretKey, depth+1) {
				return false
			}
		}
	case nil, bool, float64, json.Number:
	default:
		return depth > 0 // a nested foreign value is skipped, a top-level one encoded
	}
	return true
}

// addJSON reads the strings of JSON text, skipping values of secret-named
// members, within the token budget.
func (s *sent) addJSON(b []byte) {
	type frame struct{ obj, expectKey, secret, keySecret bool }
	dec := json.NewDecoder(bytes.NewReader(b))
	stack := []frame{{}}
	valueSecret := func() bool {
		top := stack[len(stack)-1]
		return top.secret || top.obj && top.keySecret
	}
	valueDone := func() {
		if top := &stack[len(stack)-1]; top.obj {
			top.expectKey = true
		}
	}
	for n := 0; n < maxSentTokens; n++ {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, frame{obj: t == '{', expectKey: t == '{', secret: valueSecret()})
				continue
			}
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			valueDone()
		case string:
			if top := &stack[len(stack)-1]; top.obj && top.expectKey {
				top.keySecret = leak.IsSecretKey(t)
				top.expectKey = false
				continue
			}
			if !valueSecret() && !s.add(t) {
				return
			}
			valueDone()
		default:
			valueDone()
		}
	}
}
