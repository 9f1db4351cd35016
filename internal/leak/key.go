package leak

import (
	"strings"
	"unsafe"
)

// IsSecretKey reports whether a key, member, header, flag or parameter name
// names a credential, so that its value is never shown or logged whatever
// its type. It is the one matcher mcpguard uses everywhere: pairs in text,
// JSON members, logged arguments and validation previews.
//
// The name is split into words at '_', '-', '.', spaces and case changes
// (dbPassword, DB_PASSWORD, x-api-key, APIKey), so prefixes and suffixes do
// not hide a secret word. A name is secret when one of its words is a
// secret word (password, passwd, pwd, pass, passphrase, passcode, secret(s),
// token, credential(s), authorization, auth, cookie, bearer, pin, otp, cvv,
// cvc, and the signatures of signed URLs: signature(s), sig) or a compound
// ending in one (accesstoken, dbpassword), or is "key(s)" after api, access,
// secret, private, signing, encryption, master, client, account or ssh, or
// "id" after session or after "key pair" (CloudFront's Key-Pair-Id). It is
// not secret when a metadata word follows the last secret word
// (token_count, password_min_length, secret_name, auth_type,
// token_expires_at, signature_version, signature_algorithm), when "token"
// follows a pagination word (page_token, nextPageToken, next_token,
// continuation_token: agents need them to page) or when the word is
// "tokens" (LLM usage counts: max_tokens, tokens_used).
//
// So a signed URL loses its X-Amz-Signature, X-Amz-Credential,
// X-Amz-Security-Token, X-Goog-Signature, X-Goog-Credential, Azure's sig,
// CloudFront's Signature and Key-Pair-Id, and keeps its expiry, date and
// version (se, sv, X-Amz-Expires). CloudFront's Policy stays by name: a
// "policy" is readable everywhere else (password_policy, an IAM policy),
// and a signed URL's base64 policy is long enough for the high-entropy
// token rule.
func IsSecretKey(name string) bool {
	if name == "" || len(name) > maxKeyLen {
		return false
	}
	var buf [maxWords]span
	words := splitWords(name, buf[:0])
	last := -1
	for i, w := range words {
		if secretWord(name, words, i, w) {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, w := range words[last+1:] {
		if inSet(name[w.start:w.end], metadataWords) {
			return false
		}
	}
	return true
}

const (
	maxKeyLen = 256
	maxWords  = 32
)

type span struct{ start, end int }

var (
	secretWords = []string{
		"password", "passwd", "pwd", "pass", "passphrase", "passcode", "secret", "secrets",
		"token", "credential", "credentials", "authorization", "auth", "cookie", "bearer",
		"apikey", "apikeys", "privatekey", "accesskey", "secretkey", "sessionid", "passwords",
		"pin", "otp", "cvv", "cvc", "signature", "signatures", "sig",
	}
	// compoundSuffixes make a one-word compound secret: dbpassword, accesstoken.
	compoundSuffixes = []string{"password", "passwd", "secret", "token", "apikey", "accesskey", "secretkey", "privatekey", "signature"}
	keyPrefixes      = []string{"api", "access", "secret", "private", "signing", "encryption", "master", "client", "account", "ssh", "auth", "app", "license"}
	paginationWords  = []string{"page", "next", "prev", "previous", "pagination", "continuation", "cursor", "sync", "resume"}
	metadataWords    = []string{
		"count", "counts", "length", "len", "limit", "limits", "type", "types", "kind", "policy", "min", "max",
		"ttl", "expiry", "expires", "expiration", "exp", "at", "url", "uri", "endpoint", "name", "names",
		"id", "ids", "method", "mode", "scheme", "provider", "enabled", "required", "rate", "version",
		"rotation", "rotated", "created", "updated", "changed", "hint", "usage", "used", "valid", "strength",
		"algorithm",
	}
)

func secretWord(name string, words []span, i int, w span) bool {
	word := name[w.start:w.end]
	prev := ""
	if i > 0 {
		prev = name[words[i-1].start:words[i-1].end]
	}
	switch {
	case strings.EqualFold(word, "token"):
		return !inSet(prev, paginationWords)
	case strings.EqualFold(word, "key") || strings.EqualFold(word, "keys"):
		return inSet(prev, keyPrefixes)
	case strings.EqualFold(word, "id"):
		// session_id; CloudFront's Key-Pair-Id names the key that signed a URL.
		return strings.EqualFold(prev, "session") || strings.EqualFold(prev, "pair") && i > 1 &&
			strings.EqualFold(name[words[i-2].start:words[i-2].end], "key")
	case inSet(word, secretWords):
		return true
	}
	for _, suf := range compoundSuffixes {
		if len(word) > len(suf)+1 && strings.EqualFold(word[len(word)-len(suf):], suf) {
			return !inSet(word[:len(word)-len(suf)], paginationWords)
		}
	}
	return false
}

func inSet(w string, set []string) bool {
	for _, s := range set {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// splitWords appends the words of name to dst: runs of letters and digits,
// split where lower case turns upper (dbPassword), before the last upper
// of a run followed by lower case (APIKey) and between letters and digits
// (password2, oauth2Token).
func splitWords(name string, dst []span) []span {
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		if !isAlnum(c) && c < 0x80 {
			if start >= 0 {
				dst = appendSpan(dst, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := name[i-1]
		switch {
		case (c >= 0x80) != (p >= 0x80):
			// Where ASCII meets other bytes (a letter like é, or an
			// invalid byte glued to a key: "\xe3PASS"), a word ends, as
			// at a case change: otherwise one stray byte would hide
			// PASS from the matcher.
			dst = appendSpan(dst, span{start, i})
			start = i
		case isUpper(c) && (isLower(p) || isDigit(p)),
			isDigit(c) && !isDigit(p) && p < 0x80,
			isLower(c) && isDigit(p):
			dst = appendSpan(dst, span{start, i})
			start = i
		case isLower(c) && isUpper(p) && i-1 > start && isUpper(name[i-2]):
			dst = appendSpan(dst, span{start, i - 1})
			start = i - 1
		}
	}
	return dst
}

func appendSpan(dst []span, s span) []span {
	if len(dst) == cap(dst) {
		// A name with more words than we track keeps its last ones: the
		// words that decide are the last secret word and what follows it.
		copy(dst, dst[1:])
		dst = dst[:len(dst)-1]
	}
	return append(dst, s)
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// MayHoldSecretKey reports whether JSON text b may have a member whose
// name IsSecretKey takes for a secret's: false only when none of the
// PairTriggers, one of which every such name holds, appears in b, ASCII
// letter case aside, and b has no \u escape or non-ASCII byte that could
// spell or fold into one. It lets a reader skip the walk of arguments that
// cannot hold a secret.
func MayHoldSecretKey(b []byte) bool {
	var buf [512]byte
	if len(b) > len(buf) {
		return true // the walk costs more than this scan saves
	}
	if len(b) == 0 {
		return false
	}
	lower := buf[:len(b)]
	for i, c := range b {
		if c >= 0x80 || c == '\\' && i+1 < len(b) && b[i+1] == 'u' {
			return true
		}
		if isUpper(c) {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	// The string is read here only, while lower is not written.
	return ContainsAny(unsafe.String(&lower[0], len(lower)), PairTriggers)
}
