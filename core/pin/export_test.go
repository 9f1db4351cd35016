package pin_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

type jsonRaw = json.RawMessage
