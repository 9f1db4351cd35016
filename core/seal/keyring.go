package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length in bytes of every key of a [KeyRing]: AES-256.
const KeySize = 32

// maxKeyID bounds a key id, which travels in every sealed state.
const maxKeyID = 64

// A KeyRing holds the keys a [Sealer] seals and opens with: the current
// key, which seals, and older keys, which still open what they sealed.
// Rotation is three steps: add the new key to every replica's ring as an
// older key; once every replica has it, make it current; once the old
// current key's states have expired (the Sealer's TTL), remove it.
//
// A KeyRing is immutable and safe for concurrent use.
type KeyRing struct {
	current string
	keys    map[string]cipher.AEAD
	random  bool // RandomKeyRing's: no ring was configured
}

// NewKeyRing returns a ring whose current key is keys[current]. Every key
// must be [KeySize] bytes; a key id is 1 to 64 characters of letters,
// digits, '-', '_' and '.'.
func NewKeyRing(current string, keys map[string][]byte) (*KeyRing, error) {
	if _, ok := keys[current]; !ok {
		return nil, fmt.Errorf("seal: the current key %q is not in the ring", current)
	}
	r := &KeyRing{current: current, keys: make(map[string]cipher.AEAD, len(keys))}
	for id, k := range keys {
		if err := r.add(id, k); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *KeyRing) add(id string, key []byte) error {
	if !validKeyID(id) {
		return fmt.Errorf("seal: key id %q: want 1 to %d characters of [A-Za-z0-9._-]", id, maxKeyID)
	}
	if len(key) != KeySize {
		return fmt.Errorf("seal: key %q is %d bytes, want %d", id, len(key), KeySize)
	}
	if _, dup := r.keys[id]; dup {
		return fmt.Errorf("seal: key id %q appears twice", id)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return fmt.Errorf("seal: key %q: %w", id, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return fmt.Errorf("seal: key %q: %w", id, err)
	}
	r.keys[id] = aead
	return nil
}

func validKeyID(id string) bool {
	if id == "" || len(id) > maxKeyID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// ParseKeyRing reads a ring from text, such as a file's content or an
// environment variable's value. The format is one key a line,
//
//	kid:base64key
//
// where base64key is the standard or URL base64 encoding (padded or not)
// of [KeySize] bytes, for instance the output of `openssl rand -base64 32`.
// The first key is the current one; the others only open. Blank lines,
// lines starting with '#', and spaces around a line or either part are
// ignored; a ring in an environment variable may separate its keys with
// ',' or ';' instead of newlines. Errors name the line, never a key.
func ParseKeyRing(text []byte) (*KeyRing, error) {
	r := &KeyRing{keys: map[string]cipher.AEAD{}}
	fields := bytes.FieldsFunc(text, func(c rune) bool { return c == '\n' || c == ',' || c == ';' })
	n := 0
	for _, line := range fields {
		s := strings.TrimSpace(string(line))
		if s == "" || s[0] == '#' {
			continue
		}
		n++
		id, enc, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("seal: key ring entry %d: want kid:base64key", n)
		}
		id, enc = strings.TrimSpace(id), strings.TrimSpace(enc)
		key, err := decodeKey(enc)
		if err != nil {
			return nil, fmt.Errorf("seal: key ring entry %d (%q): the key is not base64", n, id)
		}
		if err := r.add(id, key); err != nil {
			return nil, err
		}
		if r.current == "" {
			r.current = id
		}
	}
	if r.current == "" {
		return nil, errors.New("seal: the key ring holds no key")
	}
	return r, nil
}

// decodeKey accepts the four base64 alphabets a key file may hold.
func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// RandomKeyRing returns a ring of one key drawn from crypto/rand, with an
// id of its own, "process-" and 8 random characters, so that another
// process's state is refused as sealed under a key this one does not hold
// ([ErrUnknownKey]). It is what a [Sealer] uses when no ring is
// configured: a state sealed by one process opens in that process only,
// so a restart or another replica refuses it and the client starts the
// call over. Replicas behind one address need a shared ring
// ([ParseKeyRing]).
func RandomKeyRing() *KeyRing {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		panic("seal: crypto/rand: " + err.Error()) // rand.Read does not fail since Go 1.24
	}
	id := "process-" + rand.Text()[:8]
	r, err := NewKeyRing(id, map[string][]byte{id: key})
	if err != nil {
		panic(err)
	}
	r.random = true
	return r
}

// Current returns the id of the key that seals.
func (r *KeyRing) Current() string { return r.current }

// Len returns how many keys the ring holds.
func (r *KeyRing) Len() int { return len(r.keys) }
