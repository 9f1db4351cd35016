package seal

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"
)

// The reasons a state does not open, for the server's log; the client is
// told only that its requestState did not verify. Test with errors.Is.
var (
	// ErrTampered: the state is not one this ring sealed, or was changed:
	// not base64, too short or too long, an unknown format version, or
	// authentication failed.
	ErrTampered = errors.New("seal: requestState was altered or is not sealed")
	// ErrUnknownKey: the state names a key id the ring does not hold
	// (another server's, or a key rotated out).
	ErrUnknownKey = errors.New("seal: requestState was sealed with a key this server does not hold")
	// ErrBinding: the state is authentic but was handed out for another
	// call: another method, tool, arguments, caller or audience.
	ErrBinding = errors.New("seal: requestState belongs to another call")
	// ErrExpired: the state is authentic and bound to this call, but its
	// time to live has passed.
	ErrExpired = errors.New("seal: requestState has expired")
	// ErrTooLarge: Seal was given a state longer than the Sealer's maximum.
	ErrTooLarge = errors.New("seal: requestState is too large to seal")
)

// Defaults of a [Sealer].
const (
	DefaultTTL      = 10 * time.Minute
	DefaultMaxState = 64 << 10
)

const (
	version   = 1
	nonceSize = 12
	tagSize   = 16
	// claims precede the state inside the ciphertext: the expiry (Unix
	// seconds) and the binding's digest.
	claimsSize = 8 + sha256.Size
	// minRaw is the shortest sealed state, decoded: the version, the key
	// id's length and a key id of one byte, the nonce, the claims and the
	// tag, around an empty state.
	minRaw = 2 + 1 + nonceSize + claimsSize + tagSize
)

// enc is strict: the last character's spare bits must be zero, as Seal
// writes them, so that a sealed state has one spelling (a lenient decoder
// opens it under up to 16).
var enc = base64.RawURLEncoding.Strict()

// A Binding is what a sealed state is bound to: the call that received it.
// A state opens only for a call with an equal Binding, so the retry must be
// the same method, on the same tool, with the same arguments (compared by
// core/wire's ArgumentsDigest), from the same caller. inputResponses and
// requestState are not part of it: they are what changes between rounds.
type Binding struct {
	// Method is the JSON-RPC method, "tools/call".
	Method string
	// Name is the tool's name.
	Name string
	// Arguments is core/wire's ArgumentsDigest of the call's arguments.
	Arguments [sha256.Size]byte
	// Caller identifies who called, where the server knows it (an
	// authenticated principal); empty binds no caller.
	Caller string
}

// A Sealer seals the requestState a server hands out and opens the one a
// client echoes: AES-256-GCM under the ring's current key, with an expiry
// and the call's [Binding] inside the authenticated ciphertext. It is safe
// for concurrent use.
type Sealer struct {
	ring     *KeyRing
	ttl      time.Duration
	audience string
	max      int
	now      func() time.Time
	bufs     sync.Pool
	// nonces draws the GCM nonces: ChaCha8, a CSPRNG, seeded from
	// crypto/rand, because a getrandom call per seal costs microseconds.
	mu     sync.Mutex
	nonces *mrand.ChaCha8
}

// Option configures a [Sealer].
type Option func(*Sealer)

// WithTTL sets how long a sealed state opens; [DefaultTTL] by default.
// The expiry has a resolution of one second.
func WithTTL(d time.Duration) Option {
	return func(s *Sealer) {
		if d > 0 {
			s.ttl = d
		}
	}
}

// WithAudience binds every state to audience, such as the server's name,
// so that servers sharing a key ring do not open each other's states.
func WithAudience(audience string) Option {
	return func(s *Sealer) { s.audience = audience }
}

// WithMaxState sets the longest plaintext state Seal accepts, in bytes;
// [DefaultMaxState] by default. Open refuses a sealed state longer than
// this bound allows without decoding it.
func WithMaxState(n int) Option {
	return func(s *Sealer) {
		if n > 0 {
			s.max = n
		}
	}
}

// WithClock sets the clock expiries are taken from and checked against,
// for tests; time.Now by default.
func WithClock(now func() time.Time) Option {
	return func(s *Sealer) {
		if now != nil {
			s.now = now
		}
	}
}

// New returns a Sealer over ring; a nil ring is [RandomKeyRing]().
func New(ring *KeyRing, opts ...Option) *Sealer {
	if ring == nil {
		ring = RandomKeyRing()
	}
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		panic("seal: crypto/rand: " + err.Error()) // rand.Read does not fail since Go 1.24
	}
	s := &Sealer{ring: ring, ttl: DefaultTTL, max: DefaultMaxState, now: time.Now, nonces: mrand.NewChaCha8(seed)}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// Ring returns the Sealer's key ring.
func (s *Sealer) Ring() *KeyRing { return s.ring }

// maxSealed is the length of the longest sealed state Open decodes.
func (s *Sealer) maxSealed() int {
	return enc.EncodedLen(2 + maxKeyID + nonceSize + claimsSize + s.max + tagSize)
}

func (s *Sealer) buf(n int) *[]byte {
	if p, ok := s.bufs.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
	return &b
}

func (s *Sealer) put(p *[]byte) {
	if cap(*p) <= 4<<10 {
		s.bufs.Put(p)
	}
}

// Seal returns state sealed for the call b describes: URL-safe base64
// without padding, 4/3 of the length of the state, the key id and 70
// bytes. An empty state seals too (the result is never empty).
func (s *Sealer) Seal(b Binding, state string) (string, error) {
	if len(state) > s.max {
		return "", ErrTooLarge
	}
	kid := s.ring.current
	aead := s.ring.keys[kid]
	hdr := 2 + len(kid)
	plain := claimsSize + len(state)
	raw := hdr + nonceSize + plain + tagSize
	p := s.buf(raw + enc.EncodedLen(raw))
	defer s.put(p)
	buf := *p
	buf[0], buf[1] = version, byte(len(kid))
	copy(buf[2:], kid)
	nonce := buf[hdr : hdr+nonceSize]
	s.mu.Lock()
	_, _ = s.nonces.Read(nonce) // never fails
	s.mu.Unlock()
	body := buf[hdr+nonceSize : hdr+nonceSize+plain]
	binary.BigEndian.PutUint64(body, uint64(s.now().Add(s.ttl).Unix()))
	digest := s.digest(&b)
	copy(body[8:], digest[:])
	copy(body[claimsSize:], state)
	aead.Seal(body[:0], nonce, body, buf[:hdr])
	out := buf[raw:]
	enc.Encode(out, buf[:raw])
	return string(out), nil
}

// Open returns the state that Seal sealed for the call b describes, or an
// error that says why it does not open ([ErrTampered], [ErrUnknownKey],
// [ErrBinding], [ErrExpired]); the reason is for the server's log.
func (s *Sealer) Open(b Binding, sealed string) (string, error) {
	state, _, err := s.open(&b, nil, sealed)
	return state, err
}

// open is Open for a state sealed for b or, when alt is not nil, for
// alt: decrypted once, it reports which of the two it was sealed for.
func (s *Sealer) open(b, alt *Binding, sealed string) (state string, isAlt bool, err error) {
	// The decoder skips line breaks, even strict, and Seal never writes
	// one: a state with one is refused, so that a sealed state has one
	// spelling, and what decodes is as long as the text says.
	if len(sealed) > s.maxSealed() || len(sealed) < enc.EncodedLen(minRaw) ||
		strings.ContainsAny(sealed, "\r\n") {
		return "", false, ErrTampered
	}
	n := enc.DecodedLen(len(sealed))
	p := s.buf(len(sealed) + n)
	defer s.put(p)
	buf := *p
	src := buf[:len(sealed)]
	copy(src, sealed)
	raw := buf[len(sealed):]
	m, err := enc.Decode(raw, src)
	if err != nil {
		return "", false, ErrTampered
	}
	raw = raw[:m]
	if len(raw) < minRaw || raw[0] != version {
		return "", false, ErrTampered
	}
	hdr := 2 + int(raw[1])
	if raw[1] == 0 || int(raw[1]) > maxKeyID || len(raw) < hdr+nonceSize+claimsSize+tagSize {
		return "", false, ErrTampered
	}
	aead, ok := s.ring.keys[string(raw[2:hdr])]
	if !ok {
		return "", false, ErrUnknownKey
	}
	nonce := raw[hdr : hdr+nonceSize]
	body := raw[hdr+nonceSize:]
	plain, err := aead.Open(body[:0], nonce, body, raw[:hdr])
	if err != nil {
		return "", false, ErrTampered
	}
	digest := s.digest(b)
	if subtle.ConstantTimeCompare(plain[8:claimsSize], digest[:]) != 1 {
		if alt == nil {
			return "", false, ErrBinding
		}
		if digest = s.digest(alt); subtle.ConstantTimeCompare(plain[8:claimsSize], digest[:]) != 1 {
			return "", false, ErrBinding
		}
		isAlt = true
	}
	if s.now().Unix() > int64(binary.BigEndian.Uint64(plain)) {
		return "", false, ErrExpired
	}
	return string(plain[claimsSize:]), isAlt, nil
}

// digest is the SHA-256 of the audience and the binding, each field
// length-prefixed so that no two bindings share an encoding.
func (s *Sealer) digest(b *Binding) [sha256.Size]byte {
	var stack [256]byte
	m := stack[:0]
	m = append(m, "mcpguard/seal/v1"...)
	for _, f := range [...]string{s.audience, b.Method, b.Name, b.Caller} {
		m = binary.BigEndian.AppendUint32(m, uint32(len(f)))
		m = append(m, f...)
	}
	m = append(m, b.Arguments[:]...)
	return sha256.Sum256(m)
}
