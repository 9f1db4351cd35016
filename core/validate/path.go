package validate

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpguard/mcpguard/core/internal/fields"
)

func validationErrors(err error) validator.ValidationErrors {
	var ve validator.ValidationErrors
	if errors.As(err, &ve) {
		return ve
	}
	return nil
}

// resolved is a validator/v10 struct namespace resolved against the
// type: the JSON path, the fields on the way and the type at its end.
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
	// Drop the top-level type's name.
	i := strings.IndexByte(ns, '.')
	if i < 0 {
		return resolved{typ: root}
	}
	ns = ns[i+1:]
	w := pathWalk{doc: doc, track: doc != nil}
	cur := root
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
		cur, ns = w.subscripts(w.field(f), ns)
		ns = strings.TrimPrefix(ns, ".")
	}
	w.r.path = w.b.String()
	w.r.typ = cur
	return w.r
}

// pathWalk is the state of resolveIn: the JSON path so far, and where it
// is in the decoded arguments while tracking them.
type pathWalk struct {
	r     resolved
	b     strings.Builder
	doc   any
	track bool
}

// field steps into f, returning its type: an embedded struct, which
// encoding/json flattens, adds nothing to the path.
func (w *pathWalk) field(f *fieldInfo) *typeInfo {
	if f.embedded != nil {
		return f.embedded
	}
	if w.b.Len() > 0 {
		w.b.WriteByte('.')
	}
	w.b.WriteString(f.jsonName)
	w.member(f.jsonName)
	w.r.field = f
	if w.r.first == nil {
		w.r.first = f
	}
	return f.typ
}

// subscripts reads the indexes and keys that follow a field in ns, "[2]"
// or "[key]", stepping into cur's elements.
func (w *pathWalk) subscripts(cur *typeInfo, ns string) (*typeInfo, string) {
	for strings.HasPrefix(ns, "[") && cur != nil {
		if cur.kind == kSlice {
			j := strings.IndexByte(ns, ']')
			if j < 0 {
				return cur, ""
			}
			w.b.WriteString(ns[:j+1])
			w.index(ns[1:j])
			ns = ns[j+1:]
		} else {
			// A map key may itself contain brackets and dots: it
			// ends at the last "]" that is followed by '.', '[' or
			// the end.
			j := keyEnd(ns)
			fields.WriteKey(&w.b, ns[1:j])
			w.member(ns[1:j])
			ns = ns[j+1:]
		}
		cur = cur.elem
	}
	return cur, ns
}

// member follows the arguments into the member key of an object, noting
// when there is none.
func (w *pathWalk) member(key string) {
	if !w.track {
		return
	}
	m, _ := w.doc.(map[string]any)
	var ok bool
	if w.doc, ok = m[key]; !ok {
		w.r.absent, w.track = true, false
	}
}

// index follows the arguments into element i of an array, noting when
// there is none.
func (w *pathWalk) index(i string) {
	if !w.track {
		return
	}
	a, _ := w.doc.([]any)
	n, err := strconv.Atoi(i)
	if err != nil || n < 0 || n >= len(a) {
		w.r.absent, w.track = true, false
		return
	}
	w.doc = a[n]
}

func keyEnd(ns string) int {
	for j := 1; j < len(ns); j++ {
		if ns[j] == ']' && (j+1 == len(ns) || ns[j+1] == '.' || ns[j+1] == '[') {
			return j
		}
	}
	return len(ns) - 1
}

// firstField returns the top-level field of ti that a namespace is under.
func firstField(ti *typeInfo, ns string) *fieldInfo {
	return resolve(ti, ns).first
}
