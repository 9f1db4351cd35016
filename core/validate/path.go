package validate

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
)

func validationErrors(err error) validator.ValidationErrors {
	var ve validator.ValidationErrors
	if errors.As(err, &ve) {
		return ve
	}
	return nil
}

// nsStep is one step of a validator/v10 struct namespace resolved against
// the type: the field reached (nil for an element) and the JSON path so far.
type resolved struct {
	path  string
	field *fieldInfo // the innermost named field on the way, if any
	first *fieldInfo // the outermost one
	typ   *typeInfo  // the type at the end of the path
	// absent reports that the arguments had no member at the path, so
	// validator/v10 saw the zero value of a member the agent left out.
	absent bool
}

// resolve turns a validator/v10 struct namespace such as
// "SearchArgs.Filters[2].Name" into the JSON path "filters[2].name".
// Embedded structs, which encoding/json flattens, leave no trace in the
// path.
func resolve(root *typeInfo, ns string) resolved {
	return resolveIn(root, ns, nil)
}

// resolveIn is resolve that also follows the decoded arguments doc, when
// given, to tell whether the member at the path was present.
func resolveIn(root *typeInfo, ns string, doc any) resolved {
	var r resolved
	track := doc != nil
	// Drop the top-level type's name.
	if i := strings.IndexByte(ns, '.'); i >= 0 {
		ns = ns[i+1:]
	} else {
		return resolved{typ: root}
	}
	cur := root
	var b strings.Builder
	for ns != "" {
		// A Go field name runs to the next '.' or '['.
		end := strings.IndexAny(ns, ".[")
		if end < 0 {
			end = len(ns)
		}
		name := ns[:end]
		ns = ns[end:]
		if cur == nil || cur.byGo == nil {
			break
		}
		f := cur.byGo[name]
		if f == nil {
			break
		}
		if f.embedded != nil {
			cur = f.embedded
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.jsonName)
			if track {
				m, _ := doc.(map[string]any)
				var ok bool
				if doc, ok = m[f.jsonName]; !ok {
					r.absent = true
					track = false
				}
			}
			r.field = f
			if r.first == nil {
				r.first = f
			}
			cur = f.typ
		}
		// Indexes and keys.
		for strings.HasPrefix(ns, "[") && cur != nil {
			if cur.kind == kSlice {
				j := strings.IndexByte(ns, ']')
				if j < 0 {
					ns = ""
					break
				}
				b.WriteString(ns[:j+1])
				if track {
					a, _ := doc.([]any)
					i, err := strconv.Atoi(ns[1:j])
					if err != nil || i < 0 || i >= len(a) {
						r.absent, track = true, false
					} else {
						doc = a[i]
					}
				}
				ns = ns[j+1:]
			} else {
				// A map key may itself contain brackets and dots: it
				// ends at the last "]" that is followed by '.', '[' or
				// the end.
				j := keyEnd(ns)
				writeKey(&b, ns[1:j])
				if track {
					m, _ := doc.(map[string]any)
					var ok bool
					if doc, ok = m[ns[1:j]]; !ok {
						r.absent, track = true, false
					}
				}
				ns = ns[j+1:]
			}
			cur = cur.elem
		}
		ns = strings.TrimPrefix(ns, ".")
	}
	r.path = b.String()
	r.typ = cur
	return r
}

func keyEnd(ns string) int {
	for j := 1; j < len(ns); j++ {
		if ns[j] == ']' && (j+1 == len(ns) || ns[j+1] == '.' || ns[j+1] == '[') {
			return j
		}
	}
	return len(ns) - 1
}

// writeKey appends a map key to a JSON path: .key when it is a plain
// identifier, ["key"] otherwise. A long key is shortened: paths are for
// pointing, not for echoing input.
func writeKey(b *strings.Builder, key string) {
	if isIdent(key) && len(key) <= 64 {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
		return
	}
	b.WriteByte('[')
	b.WriteString(strconv.Quote(clip(key, 64)))
	b.WriteByte(']')
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' || i > 0 && c == '-') {
			return false
		}
	}
	return true
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// firstField returns the top-level field of ti that a namespace is under.
func firstField(ti *typeInfo, ns string) *fieldInfo {
	return resolve(ti, ns).first
}
