package middlewaretest

import (
	"encoding/json"
	"regexp"
	"strings"
)

// leakPatterns are what must never reach a client whatever the tool did.
// They are searched in the wire JSON, where a newline is the two
// characters `\n`, so no pattern relies on line structure.
var leakPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a goroutine dump", regexp.MustCompile(`goroutine \d+ \[`)},
	{"a source position", regexp.MustCompile(`\.go:\d+`)},
	{"a Go panic", regexp.MustCompile(`\bpanic: |runtime\.gopanic|runtime/debug\.Stack|\[recovered\]`)},
	{"a runtime error", regexp.MustCompile(`runtime error: `)},
	{"an absolute Unix path", regexp.MustCompile(`(?:^|[\s"'=(\[,;])/(?:[A-Za-z0-9._@+-]+/)+[A-Za-z0-9._@+-]*`)},
	{"an absolute Windows path", regexp.MustCompile(`\b[A-Za-z]:\\\\[A-Za-z0-9._ -]+\\\\`)},
}

// Leaks lists what raw, a response as sent on the wire, gives away: a Go
// stack trace or goroutine dump, a file.go:123 position, a panic or runtime
// error, an absolute file path, or any of secrets (also in its JSON-escaped
// form). Empty secrets are ignored. It returns nil when nothing leaks.
//
// Use it on bytes from any client; [Result.NoLeak] applies it to a call.
func Leaks(raw []byte, secrets ...string) []string {
	s := string(raw)
	var out []string
	for _, p := range leakPatterns {
		if m := p.re.FindString(s); m != "" {
			out = append(out, p.what+" ("+strings.TrimSpace(m)+")")
		}
	}
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		esc, _ := json.Marshal(secret)
		escaped := string(esc[1 : len(esc)-1])
		if strings.Contains(s, secret) || strings.Contains(s, escaped) {
			out = append(out, "a secret ("+mask(secret)+")")
		}
	}
	return out
}

// mask names a secret in a failure message without repeating it.
func mask(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return strings.Repeat("*", len(r))
	}
	return string(r[:2]) + strings.Repeat("*", len(r)-4) + string(r[len(r)-2:])
}
