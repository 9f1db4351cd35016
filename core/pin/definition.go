package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mcpguard/mcpguard/core/wire"
)

// Fields are the members of a tool definition a pin covers: what an
// agent reads of the tool.
var Fields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// ErrDefinition is the error [Definition] returns for a tool definition
// that is not a JSON object with a string name and a canonical form.
var ErrDefinition = errors.New("pin: not a tool definition with a canonical form")

// Definition returns the pinned part of a tool definition, as a server
// lists it in tools/list: its name, the [Fields] it has in RFC 8785
// canonical form, and their hex SHA-256, or [ErrDefinition].
func Definition(tool []byte) (name string, canonical []byte, sum string, err error) {
	whole, err := wire.CanonicalDocument(nil, tool)
	if err != nil {
		return "", nil, "", ErrDefinition
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(whole, &members) != nil || members == nil {
		return "", nil, "", ErrDefinition
	}
	if !foldDistinct(members) {
		return "", nil, "", fmt.Errorf("%w: two members whose names differ only in case", ErrDefinition)
	}
	if json.Unmarshal(members["name"], &name) != nil || name == "" {
		return "", nil, "", fmt.Errorf("%w: no name", ErrDefinition)
	}
	kept := make(map[string]json.RawMessage, len(Fields))
	for _, f := range Fields {
		if v, ok := members[f]; ok {
			kept[f] = v
		}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return "", nil, "", ErrDefinition
	}
	canonical, err = wire.CanonicalDocument(nil, b) // json.Marshal escapes <, > and & that RFC 8785 keeps
	if err != nil {
		return "", nil, "", ErrDefinition
	}
	return name, canonical, digest(canonical), nil
}

// structs are the members SDK clients decode into Go structs, where
// encoding/json matches a name whatever its case and keeps the last of
// two: {"description":"a","Description":"b"} reads as "b" there.
var structs = []string{"inputSchema", "outputSchema", "annotations"}

// foldDistinct reports whether no two names of the definition, or of a
// member decoded into a struct, fold alike. Names inside a schema's
// properties are data, read exactly, and may ("id" and "ID").
func foldDistinct(members map[string]json.RawMessage) bool {
	if !wire.DistinctFolds(maps.Keys(members)) {
		return false
	}
	for _, k := range structs {
		var inner map[string]json.RawMessage
		if json.Unmarshal(members[k], &inner) == nil && !wire.DistinctFolds(maps.Keys(inner)) {
			return false
		}
	}
	return true
}

func digest(canonical []byte) string {
	s := sha256.Sum256(canonical)
	return hex.EncodeToString(s[:])
}
