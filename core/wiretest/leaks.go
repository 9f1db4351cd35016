package wiretest

import (
	"encoding/json"
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/str"
)

// maxDecodeDepth bounds how many layers of JSON inside JSON strings Leaks
// opens (an envelope's text is one layer).
const maxDecodeDepth = 4

// Leaks lists what raw, a response as sent on the wire, gives away: a Go
// stack trace or goroutine dump, a file.go:123 position, a panic or runtime
// error, an absolute file path, a secret shape (a key, a token, a password
// in a URL, the value of a secret-named key), what args carried under a
// secret-named key (redact.SentSecretsRule), or any of secrets. Empty
// secrets are ignored; what args holds otherwise (a call's own arguments)
// is not a path leak. It returns nil when nothing leaks.
//
// The patterns are the ones the redactor removes, from the one list
// mcpguard keeps (internal/leak), so "redacted" and "not a leak" agree.
// JSON is decoded first, strings inside strings included (an envelope's
// text is JSON in a JSON string), so a secret with a quote or a backslash
// is found however often it was escaped on the way. Image and audio data
// and resource blobs are binary and not searched for patterns.
func Leaks(raw []byte, args any, secrets []string) []string {
	return leaks(raw, leak.NewSent(args), secrets)
}

func leaks(raw []byte, sent *leak.Sent, secrets []string) []string {
	texts := wireTexts(raw)
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, m := range leak.FindExcept(t, sent) {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.What+" ("+clip(strings.TrimSpace(m.Text))+")")
			}
		}
	}
	for _, secret := range secrets {
		if secret != "" && containsSecret(string(raw), texts, secret) {
			out = append(out, "a secret ("+mask(secret)+")")
		}
	}
	return out
}

// wireTexts returns the texts to search: every string of raw when it is
// JSON (recursively through JSON inside strings), else raw itself.
func wireTexts(raw []byte) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []string{string(raw)}
	}
	var out []string
	collect(v, 0, &out)
	return out
}

func collect(v any, depth int, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
		if t := strings.TrimSpace(x); depth < maxDecodeDepth && t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"') {
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				collect(inner, depth+1, out)
			}
		}
	case map[string]any:
		binary := x["type"] == "image" || x["type"] == "audio"
		for k, e := range x {
			if k == "blob" || binary && k == "data" {
				continue
			}
			*out = append(*out, k)
			collect(e, depth, out)
		}
	case []any:
		for _, e := range x {
			collect(e, depth, out)
		}
	}
}

// containsSecret looks for secret in the raw bytes, in its JSON-escaped
// forms (once, twice, three times) and in every decoded text.
func containsSecret(raw string, texts []string, secret string) bool {
	form := secret
	for range 4 {
		if strings.Contains(raw, form) {
			return true
		}
		esc, _ := json.Marshal(form)
		form = string(esc[1 : len(esc)-1])
	}
	for _, t := range texts {
		if strings.Contains(t, secret) {
			return true
		}
	}
	return false
}

// clip shortens a match for a failure message.
func clip(s string) string { return str.Clip(s, 80, "…") }

// mask names a secret in a failure message without repeating it.
func mask(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return strings.Repeat("*", len(r))
	}
	return string(r[:2]) + strings.Repeat("*", len(r)-4) + string(r[len(r)-2:])
}
