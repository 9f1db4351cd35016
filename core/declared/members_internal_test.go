package declared

import (
	"strings"
	"testing"
)

// TestFoldNameIsEqualFold: two names fold alike exactly when
// strings.EqualFold (encoding/json's bytes.EqualFold) reports them equal,
// the Kelvin sign and the long s included.
func TestFoldNameIsEqualFold(t *testing.T) {
	t.Parallel()
	names := []string{"path", "PATH", "Path", "key", "\u212Aey", "KEY", "sort", "\u017Fort", "SORT", "straße", "STRASSE", "ǅ", "ǆ", "Ǆ", "a1_-", "A1_-", ""}
	for _, a := range names {
		for _, b := range names {
			if got, want := foldName(a) == foldName(b), strings.EqualFold(a, b); got != want {
				t.Errorf("%q, %q: fold alike %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
