package leak

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Bounds on what [NewSent] remembers of a call's arguments, so a huge
// request costs bounded work: the first strings only, then nothing.
const (
	maxSentStrings = 256
	maxSentBytes   = 64 << 10
	maxSentTokens  = 16 << 10
	maxSentDepth   = 128
	maxSentPtrs    = 512
	maxPtrBytes    = 32 << 10
	maxSecrets     = 64
	maxSecretBytes = 16 << 10
)

// MinSecretLen is the shortest value of a secret-named argument that
// [Sent.RedactSecrets] finds in a text: a shorter one is too likely to
// stand there for something else ("abc" in "abcdef"), and is left to the
// rules that read a secret by its shape.
const MinSecretLen = 4

// Sent holds the string values a call's arguments carried, except the
// values of secret-named keys: what the client sent is no leak when it
// comes back, but a secret it sent must not come back either. Those
// values (strings and numbers, at least MinSecretLen bytes) it holds
// apart, for [Sent.RedactSecrets].
type Sent struct {
	strs        []string
	secrets     []string // longest first
	secretBytes int
	bytes       int
	visits      int // values walked, bounded like the tokens of JSON text
	// ptrs are the JSON Pointers of the values sent (/items/0/name), so
	// a validator's pointer into the arguments is no path leak.
	ptrs     []string
	ptrBytes int
}

// NewSent collects the strings of args: json.RawMessage or []byte (the
// wire form, req.GetRawArguments()), decoded JSON (map[string]any, []any),
// or any value that encodes as JSON. Only the first 256 strings and 64 KiB
// are kept, read within 16k JSON tokens, with the JSON Pointers of the
// first 512 values. It returns nil when args holds no value.
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
		if !s.addValue(args, false, 0, "") {
			if b, err := json.Marshal(args); err == nil {
				s.addJSON(b)
			}
		}
	}
	if len(s.strs) == 0 && len(s.ptrs) == 0 && len(s.secrets) == 0 {
		return nil
	}
	// Longest first: a secret that holds another is replaced whole.
	slices.SortStableFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
	return s
}

// RedactSecrets returns text with every verbatim occurrence of a value
// the call sent under a secret-named key replaced by replacement: the
// client marked it a secret by its name, whatever its shape. A nil Sent,
// or a text without one, returns text itself.
func (s *Sent) RedactSecrets(text, replacement string) string {
	if s == nil {
		return text
	}
	for _, v := range s.secrets {
		if strings.Contains(text, v) && !strings.Contains(replacement, v) {
			text = strings.ReplaceAll(text, v, replacement)
		}
	}
	return text
}

// SecretIn returns the first secret the call sent that text holds, the
// longest first, or "" for none: what [Sent.RedactSecrets] would replace.
func (s *Sent) SecretIn(text string) string {
	if s == nil {
		return ""
	}
	for _, v := range s.secrets {
		if strings.Contains(text, v) {
			return v
		}
	}
	return ""
}

// addSecret remembers the value of a secret-named key, within its budget.
func (s *Sent) addSecret(v string) {
	if len(v) < MinSecretLen || len(s.secrets) >= maxSecrets || s.secretBytes+len(v) > maxSecretBytes {
		return
	}
	s.secrets = append(s.secrets, v)
	s.secretBytes += len(v)
}

// Keeps reports whether kept, the part of a path match compared with what
// was sent, came from the call: a sent string contains it verbatim, it is
// a file URL whose path a sent string contains (the agent sent
// /tmp/x/a.go, the server wrote file:///tmp/x/a.go), or it is the JSON
// Pointer of a value the arguments hold (/items/0/name). Nothing else is
// kept: the agent cannot make a path readable that it did not spell out.
// A nil Sent keeps nothing.
func (s *Sent) Keeps(kept string) bool {
	if s == nil || kept == "" {
		return false
	}
	if s.Contains(kept) || s.hasPointer(kept) {
		return true
	}
	if p, ok := FileURLPath(kept); ok {
		if s.Contains(p) {
			return true
		}
		kept = p
	}
	// A drive path is the same path with either separator: the agent sent
	// C:\x\a.go, the server wrote file:///C:/x/a.go or C:/x/a.go.
	return len(kept) > 2 && isLetter(kept[0]) && kept[1] == ':' &&
		(s.Contains(strings.ReplaceAll(kept, "/", `\`)) || s.Contains(strings.ReplaceAll(kept, `\`, "/")))
}

// KeepsAt is [Sent.Keeps] for the kept part of a match, text[start:end]:
// when a drive letter precedes it (the Unix path rule reads "/x/a.go" in
// "C:/x/a.go"), the path with its drive is compared too.
func (s *Sent) KeepsAt(text string, start, end int) bool {
	if s.Keeps(text[start:end]) {
		return true
	}
	d := DriveStart(text, start)
	return d < start && s.Keeps(text[d:end])
}

// DriveStart returns where the path that starts at start in text begins
// with the drive letter before it ("C:" before "/x/a.go"), or start.
func DriveStart(text string, start int) int {
	if start >= 2 && text[start-1] == ':' && isLetter(text[start-2]) && (start < 3 || !isWordByte(text[start-3])) {
		return start - 2
	}
	return start
}

func (s *Sent) hasPointer(p string) bool {
	for _, x := range s.ptrs {
		if x == p {
			return true
		}
	}
	return false
}

// FileURLPath returns the path a file URL names, percent-decoded, without
// a trailing ':', ',', ';', '.' or ')' that ends the sentence around it
// rather than the path: "file:///tmp/x/a.go:" names /tmp/x/a.go.
func FileURLPath(u string) (string, bool) {
	if len(u) < len("file://") || !strings.EqualFold(u[:len("file://")], "file://") {
		return "", false
	}
	p := u[len("file://"):]
	if rest, ok := strings.CutPrefix(p, "localhost/"); ok {
		p = "/" + rest
	}
	p = strings.TrimRight(p, ":,;.)")
	if d, err := url.PathUnescape(p); err == nil {
		p = d
	}
	if len(p) > 2 && p[0] == '/' && isLetter(p[1]) && p[2] == ':' {
		p = p[1:] // file:///C:/x names C:/x
	}
	return p, p != ""
}

// addPtr remembers the pointer of one value, within its budget.
func (s *Sent) addPtr(p string) {
	if len(s.ptrs) < maxSentPtrs && s.ptrBytes+len(p) <= maxPtrBytes {
		s.ptrs = append(s.ptrs, p)
		s.ptrBytes += len(p)
	}
}

// childPtr is the pointer of a member or element of the value at parent.
func childPtr(parent, token string) string {
	if strings.ContainsAny(token, "~/") {
		token = strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
	}
	return parent + "/" + token
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

// addValue walks decoded JSON; ptr is the value's JSON Pointer. It
// reports false for a value of another type, which the caller encodes and
// reads as JSON instead.
func (s *Sent) addValue(v any, secretKey bool, depth int, ptr string) bool {
	if s.visits++; depth > maxSentDepth || s.visits > maxSentTokens {
		return true // past the budget: remember nothing more
	}
	if depth > 0 {
		s.addPtr(ptr)
	}
	switch x := v.(type) {
	case string:
		if secretKey {
			s.addSecret(x)
		} else {
			s.add(x)
		}
	case map[string]any:
		for k, e := range x {
			if !s.addValue(e, IsSecretKey(k), depth+1, childPtr(ptr, k)) {
				return false
			}
			if s.visits > maxSentTokens {
				break
			}
		}
	case []any:
		for i, e := range x {
			if !s.addValue(e, secretKey, depth+1, childPtr(ptr, strconv.Itoa(i))) {
				return false
			}
			if s.visits > maxSentTokens {
				break
			}
		}
	case float64:
		if secretKey {
			s.addSecret(strconv.FormatFloat(x, 'f', -1, 64))
		}
	case json.Number:
		if secretKey {
			s.addSecret(string(x))
		}
	case nil, bool:
	default:
		return depth > 0 // a nested foreign value is skipped, a top-level one encoded
	}
	return true
}

// addJSON reads the strings of JSON text, skipping values of secret-named
// members, within the token budget, and the pointer of every value.
func (s *Sent) addJSON(b []byte) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a secret number as it was written
	j := jsonWalk{stack: []frame{{}}}
	for n := 0; n < maxSentTokens; n++ {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				ptr, secret := j.valueStart(s)
				j.stack = append(j.stack, frame{obj: t == '{', expectKey: t == '{', secret: secret, ptr: ptr})
				continue
			}
			if len(j.stack) > 1 {
				j.stack = j.stack[:len(j.stack)-1]
			}
			j.valueDone()
		case string:
			if top := j.top(); top.obj && top.expectKey {
				top.key, top.keySecret, top.expectKey = t, IsSecretKey(t), false
				continue
			}
			if _, secret := j.valueStart(s); secret {
				s.addSecret(t)
			} else if !s.add(t) {
				return
			}
			j.valueDone()
		default:
			if _, secret := j.valueStart(s); secret {
				if n, ok := t.(json.Number); ok {
					s.addSecret(string(n))
				}
			}
			j.valueDone()
		}
	}
}

// frame is one open object or array of JSON text being read.
type frame struct {
	obj, expectKey, secret, keySecret bool
	ptr, key                          string // the container's pointer; the member being read
	idx                               int    // the next element's index
}

type jsonWalk struct{ stack []frame }

func (j *jsonWalk) top() *frame { return &j.stack[len(j.stack)-1] }

// valueStart records the pointer of the value that starts now and
// returns it, and whether the value is a secret's.
func (j *jsonWalk) valueStart(s *Sent) (string, bool) {
	top := j.top()
	secret := top.secret || top.obj && top.keySecret
	if len(j.stack) == 1 {
		return "", secret // the arguments themselves
	}
	var ptr string
	if top.obj {
		ptr = childPtr(top.ptr, top.key)
	} else {
		ptr = childPtr(top.ptr, strconv.Itoa(top.idx))
		top.idx++
	}
	s.addPtr(ptr)
	return ptr, secret
}

func (j *jsonWalk) valueDone() {
	if top := j.top(); top.obj {
		top.expectKey = true
	}
}
