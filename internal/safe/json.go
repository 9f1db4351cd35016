package safe

import (
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"math"
	"reflect"
	"slices"
)

// The SDKs encode a tool's result after every middleware has returned, so
// a MarshalJSON that panics there ends the process, and one that fails
// leaves the call unanswered. The helpers below let a layer encode what
// the handler put in a result while it can still recover, once, and hand
// the SDK bytes to copy instead of code to call.

// maxPlainDepth bounds how deeply PlainJSON looks into maps and slices;
// deeper values are encoded, which also catches a cycle.
const maxPlainDepth = 16

// PlainJSON reports whether encoding/json encodes v without calling code
// of v's own (a MarshalJSON or MarshalText method) and without failing,
// so that a layer can leave it for the SDK to encode:
// nil, strings, booleans, integers, finite floats, valid json.RawMessage,
// maps from string and slices of any of these, as decoded JSON is, and
// slices of strings, integers, booleans and finite floats, and maps from
// string to string; and values of a type that encoding/json encodes by
// reflection alone, with finite floats (see plainTyped). Anything else is
// not plain; [RawJSON] encodes it.
func PlainJSON(v any) bool { return plain(v, 0) }

func plain(v any, depth int) bool {
	switch x := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		[]string, map[string]string, []int, []int64, []bool:
		return true
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case float32:
		return !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x))
	case []float64:
		return !slices.ContainsFunc(x, func(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) })
	case json.RawMessage:
		return ValidRaw(x) == nil
	case map[string]any:
		return depth < maxPlainDepth && plainAll(maps.Values(x), depth+1)
	case []any:
		return depth < maxPlainDepth && plainAll(slices.Values(x), depth+1)
	}
	return plainTyped(reflect.ValueOf(v))
}

func plainAll(values iter.Seq[any], depth int) bool {
	for v := range values {
		if !plain(v, depth) {
			return false
		}
	}
	return true
}

// errInvalidRaw is the error for a json.RawMessage that is not JSON.
var errInvalidRaw = errors.New("json.RawMessage holds invalid JSON")

// RawJSON returns v's JSON encoding. A json.RawMessage is returned as it
// is, without a copy, once checked to be valid JSON (the SDK's encoder
// would fail on it). A panic in v's own methods is not recovered here: the
// caller runs where a panic is handled.
func RawJSON(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, ValidRaw(raw)
	}
	return json.Marshal(v)
}

// ValidRaw reports, as an error, whether encoding/json can encode raw as
// it is: valid JSON, or nil (encoded as null).
func ValidRaw(raw json.RawMessage) error {
	if raw == nil || json.Valid(raw) {
		return nil
	}
	return errInvalidRaw
}

// RawValues returns m with every value that is not [PlainJSON] replaced
// by its encoding, as a copy, and true; m itself and false when every
// value is plain. m is never modified.
func RawValues(m map[string]any) (map[string]any, bool, error) {
	var out map[string]any
	for k, v := range m {
		if PlainJSON(v) {
			continue
		}
		raw, err := RawJSON(v)
		if err != nil {
			return nil, false, err
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = raw
	}
	if out == nil {
		return m, false, nil
	}
	return out, true, nil
}
