package validate

import (
	"strings"
	"testing"
)

// TestSuggestReadsValuesUpToSixtyFourBytes: a value of 64 bytes still
// gets its suggestion; one of 65 gets none (the edit distance is
// quadratic, and so long a value is no typo).
func TestSuggestReadsValuesUpToSixtyFourBytes(t *testing.T) {
	t.Parallel()
	allowed := []string{strings.Repeat("A", 63) + "B", strings.Repeat("C", 65)}
	if got := strings.Repeat("a", 63) + "b"; suggest(got, allowed) != allowed[0] {
		t.Errorf("a 64-byte value: %q", suggest(got, allowed))
	}
	if got := strings.Repeat("c", 65); suggest(got, allowed) != "" {
		t.Errorf("a 65-byte value: %q", suggest(got, allowed))
	}
}
