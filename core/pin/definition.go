package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpguard/mcpguard/core/wire"
)

// Fields are the members of a tool definition a pin covers: what an
// agent reads of the tool.
var Fields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// fieldsV1 are the members version 1 baselines pinned.
var fieldsV1 = []string{"name", "description", "inputSchema", "outputSchema", "annotations"}

// ErrDefinition is the error [Definition] returns for a tool definition
// that is not a JSON object with a string name and a canonical form.
var ErrDefinition = errors.New("pin: not a tool definition with a canonical form")

// Definition returns the pinned part of a tool definition, as a server
// lists it in tools/list: its name, the [Fields] it has in RFC 8785
// canonical form, and their hex SHA-256.
func Definition(tool []byte) (name string, canonical []byte, sum string, err error) {
	return definition(tool, Fields)
}

func definition(tool []byte, fields []string) (name string, canonical []byte, sum string, err error) {
	whole, err := wire.CanonicalDocument(nil, tool)
	if err != nil {
		return "", nil, "", ErrDefinition
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(whole, &members) != nil || members == nil {
		return "", nil, "", ErrDefinition
	}
	if json.Unmarshal(members["name"], &name) != nil || name == "" {
		return "", nil, "", fmt.Errorf("%w: no name", ErrDefinition)
	}
	kept := make(map[string]json.RawMessage, len(fields))
	for _, f := range fields {
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

func digest(canonical []byte) string {
	s := sha256.Sum256(canonical)
	return hex.EncodeToString(s[:])
}
