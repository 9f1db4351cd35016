package leak

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Bounds on what [NewSent] remembers of a call's arguments, so a huge
// request costs bounded work: the first strings only, then nothing.
const (
	maxSentStrings = 256
	maxSentBytes   = 64 << 10
	maxSentTokens  = 16 << 10
	maxSentDepth   = 128
)

// Sent holds the string values a call's arguments carried, except the
// values of secret-named keys: what the client sent is no leak when it
// comes back, but a secret it sent must not come back either.
type Sent struct {
	strs   []string
	bytes  int
	visits int // values walked, bounded like the tokens of JSON text
}

// NewSent collects the strings of args: json.RawMessage or []byte (the
// wire form, req.GetRawArguments()), decoded JSON (map[string]any, []any),
// or any value that encodes as JSON. Only the first 256 strings and 64 KiB
// are kept, read within 16k JSON tokens. It returns nil when args holds no
// string.
func NewSent(args any) *Sent {
	if args == nil {
		return nil
	}
	s := &Sent{}
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
		return nil
	}
	return s
}

// Contains reports whether one of the sent strings contains m verbatim.
// A nil Sent contains nothing.
func (s *Sent) Contains(m string) bool {
	if s == nil || m == "" {
		return false
	}
	for _, x := range s.strs {
		if strings.Contains(x, m) {
			return true
		}
	}
	return false
}

func (s *Sent) add(v string) bool {
	if len(s.strs) >= maxSentStrings || s.bytes+len(v) > maxSentBytes {
		return false
	}
	if v != "" {
		s.strs = append(s.strs, v)
		s.bytes += len(v)
	}
	return true
}

// addValue walks decoded JSON. It reports false for a value of another
// type, which the caller encodes and reads as JSON instead.
func (s *Sent) addValue(v any, secretKey bool, depth int) bool {
	if s.visits++; depth > maxSentDepth || s.visits > maxSentTokens {
		return true // past the budget: remember nothing more
	}
	switch x := v.(type) {
	case string:
		if !secretKey {
			s.add(x)
		}
	case map[string]any:
		for k, e := range x {
			if !s.addValue(e, IsSecretKey(k), depth+1) {
				return false
			}
			if s.visits > maxSentTokens {
				break
			}
		}
	case []any:
		for _, e := range x {
			if !s.addValue(e, secretKey, depth+1) {
				return false
			}
			if s.visits > maxSentTokens {
				break
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
func (s *Sent) addJSON(b []byte) {
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
				top.keySecret = IsSecretKey(t)
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
