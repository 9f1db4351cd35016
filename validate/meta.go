package validate

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/redact"
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
	elem     *typeInfo    // slice and map elements
	fields   []*fieldInfo // struct fields in declaration order, embedded ones flattened
	byJSON   map[string]*fieldInfo
	byGo     map[string]*fieldInfo // Go names, including embedded structs' type names
	names    []string              // JSON names, declaration order
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
}

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
		if t.Elem().Kind() == reflect.Uint8 {
			panic(fmt.Sprintf("validate: %s: []byte fields bind from base64 strings and are not supported; use string", t))
		}
		ti.kind = kSlice
		ti.elem = buildType(t.Elem(), active)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("validate: %s: only maps with string keys are supported", t))
		}
		ti.kind = kMap
		ti.elem = buildType(t.Elem(), active)
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
		addFields(ti, ti, t, active)
		delete(active, t)
	default:
		panic(fmt.Sprintf("validate: %s: type %s cannot be bound from JSON arguments", t, t.Kind()))
	}
	return ti
}

// addFields adds t's fields to root (flattening embedded structs, as
// encoding/json does) and records Go names on owner, the struct whose
// namespace validator/v10 reports them in.
func addFields(root, owner *typeInfo, t reflect.Type, active map[reflect.Type]bool) {
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
				if sf.Type.Kind() == reflect.Pointer {
					panic(fmt.Sprintf("validate: %s.%s: embedded struct pointers are not supported", t, sf.Name))
				}
				if active[et] {
					panic(fmt.Sprintf("validate: %s is recursive; recursive argument types are not supported", et))
				}
				active[et] = true
				sub := &typeInfo{kind: kStruct, rt: et, byGo: map[string]*fieldInfo{}}
				addFields(root, sub, et, active)
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
			goName:   sf.Name,
			jsonName: name,
			typ:      buildType(sf.Type, active),
			tag:      sf.Tag.Get("validate"),
			secret:   redact.IsSecretKey(name),
		}
		f.lvl = parseTag(f.tag)
		f.desc = description(sf)
		root.fields = append(root.fields, f)
		root.byJSON[name] = f
		root.names = append(root.names, name)
		owner.byGo[sf.Name] = f
	}
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
