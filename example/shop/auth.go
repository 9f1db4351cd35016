package shop

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/envelope"
)

// The example's accounts. A real server would check keys against a secret
// store; these are demo keys, printed in the README.
var accounts = map[string]account{
	"alice": {key: "demo-key-alice", role: "manager"},
	"bob":   {key: "demo-key-bob", role: "clerk"},
}

type account struct {
	key  string
	role string
}

// Errors of the session tools. Each wraps an envelope sentinel, so the
// envelope layer knows its code and the hints layer can key on the exact
// cause.
var (
	// ErrBadCredentials: the username or API key is wrong.
	ErrBadCredentials = fmt.Errorf("unknown username or API key: %w", envelope.ErrAuthenticationFailed)
	// ErrSessionExpired: the session token is unknown or has expired.
	ErrSessionExpired = fmt.Errorf("session token is unknown or has expired: %w", envelope.ErrAuthenticationFailed)
	// ErrNotManager: the session belongs to a user without the manager role.
	ErrNotManager = fmt.Errorf("sales reports need the manager role: %w", envelope.ErrAccessDenied)
)

// sessionTTL is how long a session token stays valid.
const sessionTTL = 30 * time.Minute

type session struct {
	user    string
	role    string
	expires time.Time
}

type sessions struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]session
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, m: map[string]session{}}
}

// login checks the credentials and starts a session.
func (s *sessions) login(user, key string) (token string, expires time.Time, err error) {
	a, ok := accounts[user]
	if !ok || subtle.ConstantTimeCompare([]byte(a.key), []byte(key)) != 1 {
		return "", time.Time{}, ErrBadCredentials
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token = "sess_" + hex.EncodeToString(b[:])
	expires = s.now().Add(sessionTTL)
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, sess := range s.m { // keep the map bounded: drop expired sessions
		if !s.now().Before(sess.expires) {
			delete(s.m, t)
		}
	}
	s.m[token] = session{user: user, role: a.role, expires: expires}
	return token, expires, nil
}

// lookup returns the live session of token.
func (s *sessions) lookup(token string) (session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.m[token]
	if !ok || !s.now().Before(sess.expires) {
		delete(s.m, token)
		return session{}, ErrSessionExpired
	}
	return sess, nil
}
