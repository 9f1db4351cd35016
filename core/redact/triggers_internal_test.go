package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// The bloom filter may only skip a substring search that would fail.
func TestTriggerScanAgreesWithSubstringSearch(t *testing.T) {
	t.Parallel()
	alphabet := "abcdeghkoprstxyz/\\:. _-@()[]{}'\"`=\t\n\x00AKIGSPX"
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "x", strings.Repeat("ab/", 1000), "DB_PASSWORD=x", "Call shop_search, then tools/list"}
	for range 3000 {
		b := make([]byte, rng.IntN(80))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		var buf [lowerBufSize]byte
		var scan textScan
		lower := lowerASCII(buf[:0], text)
		scan.reset(lower)
		for _, rule := range defaultRules {
			if got, want := scan.has(lower, rule.Triggers), leak.ContainsAny(strings.ToLower(text), rule.Triggers); got != want {
				t.Fatalf("%s on %q: scan says %v, substring search %v", rule.Name, text, got, want)
			}
		}
	}
}
