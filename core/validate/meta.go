package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/core/redact"
)

// kind is the JSON shape a Go type binds from.
type kind uint8

const (
	kString kind = iota + 1
	kBool
	kInt
	kUint
	kFloat
	kSlice
	kMap
	kStruct
	kAny
	kTime
)

// typeInfo is what binding, schema derivation and error mapping know about
// a Go type, computed once per type.
type typeInfo struct {
	kind     kind
	rt       reflect.Type // after dereferencing pointers
	nullable bool         // a pointer: JSON null binds to nil
	bits     int          // integer and float width
	raw      bool         // json.RawMessage: any JSON value, kept as written
	elem     *typeInfo    // slice and map elements
	fields   []*fieldInfo // struct fields in declaration order, embedded ones flattened
	byJSON   map[string]*fieldInfo
	byGo     map[string]*fieldInfo // Go names, including embedded structs' type names
	names    []string              // JSON names, declaration order
	// reqMask has one bit per field that must be present (see
	// fieldInfo.reqBit); reqOver says there are more than 64 of them, so
	// the fast scan cannot track them and always defers to the walker.
	reqMask uint64
	reqOver bool
	// embPtrs are the index paths of embedded struct pointers, which are
	// allocated before validation so that they behave like embedded values.
	embPtrs [][]int
	// hasEmbPtr says that this type or one nested in it has embedded
	// struct pointers to allocate.
	hasEmbPtr bool
}

// fieldInfo is one struct field as JSON sees it.
type fieldInfo struct {
	goName   string
	jsonName string // "" for an embedded struct whose fields are flattened
	typ      *typeInfo
	tag      string // the validate tag
	lvl      *level // the parsed validate tag
	desc     string
	secret   bool
	embedded *typeInfo // the flattened struct of an embedded field
	// omit says the json tag has omitempty or omitzero.
	omit bool
	// present says the member must be present: no omitempty or omitzero
	// and not a pointer (or interface), as encoding/json and the Go SDKs
	// read a struct.
	present bool
	reqBit  int   // the field's bit in reqMask, or -1
	index   []int // the path from the flattened struct, for reflect
	viaPtr  bool  // promoted through an embedded pointer
}

// fillEmbedded allocates the nil embedded struct pointers in v, a struct
// value of type ti, and in the values nested in it, so that validator/v10
// checks their fields as it checks an embedded value's: a member left out
// is then a zero, never a skipped struct.
func fillEmbedded(v reflect.Value, ti *typeInfo) {
	if !ti.hasEmbPtr {
		return
	}
	switch ti.kind {
	case kStruct:
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		for _, path := range ti.embPtrs {
			cur := v
			for _, i := range path {
				cur = cur.Field(i)
				if cur.Kind() == reflect.Pointer {
					if cur.IsNil() {
						cur.Set(reflect.New(cur.Type().Elem()))
					}
					cur = cur.Elem()
				}
			}
		}
		for _, f := range ti.fields {
			if f.typ.hasEmbPtr {
				fillEmbedded(fieldByIndex(v, f.index), f.typ)
			}
		}
	case kSlice:
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		for i := range v.Len() {
			fillEmbedded(v.Index(i), ti.elem)
		}
	case kMap:
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		iter := v.MapRange()
		for iter.Next() {
			e := reflect.New(iter.Value().Type()).Elem()
			e.Set(iter.Value())
			fillEmbedded(e, ti.elem)
			v.SetMapIndex(iter.Key(), e)
		}
	}
}

// fieldByIndex is reflect.Value.FieldByIndex through embedded pointers
// that fillEmbedded has allocated.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

var timeType = reflect.TypeFor[time.Time]()

// buildType describes t, panicking on a type that JSON arguments cannot bind
// to faithfully: invalid configuration fails at construction, never per call.
func buildType(t reflect.Type, active map[reflect.Type]bool) *typeInfo {
	ti := &typeInfo{}
	for t.Kind() == reflect.Pointer {
		ti.nullable = true
		t = t.Elem()
	}
	ti.rt = t
	switch t.Kind() {
	case reflect.String:
		ti.kind = kString
	case reflect.Bool:
		ti.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ti.kind, ti.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		ti.kind, ti.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		ti.kind, ti.bits = kFloat, t.Bits()
	case reflect.Slice:
		if t == rawMessageType {
			// Any JSON value, kept as written.
			ti.kind, ti.raw = kAny, true
			break
		}
		if t.Elem().Kind() == reflect.Uint8 {
			panic(fmt.Sprintf("validate: %s: []byte fields bind from base64 strings and are not supported; use string", t))
		}
		ti.kind = kSlice
		ti.elem = buildType(t.Elem(), active)
		ti.hasEmbPtr = ti.elem.hasEmbPtr
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("validate: %s: only maps with string keys are supported", t))
		}
		ti.kind = kMap
		ti.elem = buildType(t.Elem(), active)
		ti.hasEmbPtr = ti.elem.hasEmbPtr
	case reflect.Interface:
		if t.NumMethod() != 0 {
			panic(fmt.Sprintf("validate: %s: only the empty interface is supported", t))
		}
		ti.kind = kAny
		ti.nullable = true
	case reflect.Struct:
		if t == timeType {
			ti.kind = kTime
			break
		}
		if active[t] {
			panic(fmt.Sprintf("validate: %s is recursive; recursive argument types are not supported", t))
		}
		active[t] = true
		ti.kind = kStruct
		ti.byJSON = map[string]*fieldInfo{}
		ti.byGo = map[string]*fieldInfo{}
		addFields(ti, ti, t, nil, false, active)
		delete(active, t)
		bit := 0
		for _, f := range ti.fields {
			f.reqBit = -1
			if !f.present {
				continue
			}
			if bit == 64 {
				ti.reqOver = true
				continue
			}
			f.reqBit = bit
			ti.reqMask |= 1 << bit
			bit++
		}
		ti.hasEmbPtr = len(ti.embPtrs) > 0
		for _, f := range ti.fields {
			ti.hasEmbPtr = ti.hasEmbPtr || f.typ.hasEmbPtr
		}
	default:
		panic(fmt.Sprintf("validate: %s: type %s cannot be bound from JSON arguments", t, t.Kind()))
	}
	return ti
}

// addFields adds t's fields to root (flattening embedded structs, as
// encoding/json does, through pointers too) and records Go names on owner,
// the struct whose namespace validator/v10 reports them in. index is the
// path from root to t; viaPtr says t is reached through an embedded
// pointer, which encoding/json leaves out of a result when nil.
func addFields(root, owner *typeInfo, t reflect.Type, index []int, viaPtr bool, active map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, hasName := jsonName(sf)
		if name == "-" && !hasName {
			continue
		}
		if sf.Anonymous && !hasName {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && et != timeType {
				at := append(slices.Clone(index), i)
				if sf.Type.Kind() == reflect.Pointer {
					if sf.Type.Elem().Kind() == reflect.Pointer {
						panic(fmt.Sprintf("validate: %s.%s: embedded pointers to pointers cannot be bound", t, sf.Name))
					}
					if !sf.IsExported() {
						panic(fmt.Sprintf("validate: %s.%s: encoding/json cannot allocate a pointer to an unexported embedded struct; export the type or embed it by value", t, sf.Name))
					}
					root.embPtrs = append(root.embPtrs, at)
				}
				if active[et] {
					panic(fmt.Sprintf("validate: %s is recursive; recursive argument types are not supported", et))
				}
				active[et] = true
				sub := &typeInfo{kind: kStruct, rt: et, byGo: map[string]*fieldInfo{}}
				addFields(root, sub, et, at, viaPtr || sf.Type.Kind() == reflect.Pointer, active)
				delete(active, et)
				owner.byGo[sf.Name] = &fieldInfo{goName: sf.Name, embedded: sub, tag: sf.Tag.Get("validate")}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if strings.Contains(opts, "string") {
			panic(fmt.Sprintf("validate: %s.%s: the json \",string\" option is not supported", t, sf.Name))
		}
		if !hasName {
			name = sf.Name
		}
		if _, dup := root.byJSON[name]; dup {
			panic(fmt.Sprintf("validate: %s: two fields are named %q in JSON", root.rt, name))
		}
		f := &fieldInfo{
			index:    append(slices.Clone(index), i),
			viaPtr:   viaPtr,
			goName:   sf.Name,
			jsonName: name,
			typ:      buildType(sf.Type, active),
			tag:      sf.Tag.Get("validate"),
			secret:   redact.IsSecretKey(name),
		}
		f.lvl = parseTag(f.tag)
		f.omit = hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
		k := sf.Type.Kind()
		f.present = !f.omit && k != reflect.Pointer && k != reflect.Interface
		f.desc = description(sf)
		root.fields = append(root.fields, f)
		root.byJSON[name] = f
		root.names = append(root.names, name)
		owner.byGo[sf.Name] = f
	}
}

func hasOpt(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// jsonName returns the member name of a field per its json tag, the tag's
// options, and whether the tag named it.
func jsonName(sf reflect.StructField) (name, opts string, named bool) {
	tag, ok := sf.Tag.Lookup("json")
	if !ok {
		return "", "", false
	}
	if tag == "-" {
		return "-", "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	return name, opts, name != ""
}

// description reads a field's description the way mcp-go's
// WithInputSchema does: jsonschema_description, or the jsonschema tag as
// free text or as comma-separated "description=..." parts. An "enum=" part
// panics: enumerations belong in validate:"oneof=...", where the runtime
// check sees them too.
func description(sf reflect.StructField) string {
	if d, ok := sf.Tag.Lookup("jsonschema_description"); ok {
		return strings.TrimSpace(d)
	}
	tag, ok := sf.Tag.Lookup("jsonschema")
	if !ok {
		return ""
	}
	var parts []string
	for _, p := range strings.Split(tag, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case strings.HasPrefix(p, "enum="):
			panic(fmt.Sprintf("validate: field %s: jsonschema enum= is not checked at call time; use validate:\"oneof=...\" instead", sf.Name))
		case strings.HasPrefix(p, "description="):
			parts = append(parts, strings.TrimPrefix(p, "description="))
		default:
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}
