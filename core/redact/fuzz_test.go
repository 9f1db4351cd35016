package redact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/leak/leakcorpus"
)

// FuzzString checks that whatever the text, what String returns holds no
// leak of a kind the redactor removes (from the one shared list), that
// JSON text stays JSON, and that redacting twice changes nothing more.
func FuzzString(f *testing.F) {
	for _, sh := range leakcorpus.Shapes() {
		f.Add(sh.Text)
	}
	f.Add(`{"a":"postgres://u:p@h/x","b":[1,{"token":"t"}]}`)
	f.Add("x\x00PASSWORD=\\\"q\\\"")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		out := redact.String(s)
		for _, m := range leak.Find(out) {
			if !detectOnly(m.Name) {
				t.Fatalf("String(%q) = %q still holds %s: %q", s, out, m.What, m.Text)
			}
		}
		if again := redact.String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
		if json.Valid([]byte(s)) && utf8.ValidString(s) {
			if txt := redact.Default().Text(s); strings.TrimSpace(s)[0] == '{' && !json.Valid([]byte(txt)) {
				t.Fatalf("Text(%q) = %q is not JSON", s, txt)
			}
		}
	})
}

func detectOnly(name string) bool {
	for _, s := range leak.Specs {
		if s.Name == name {
			return s.DetectOnly
		}
	}
	return false
}
