package declared

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
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

// Members names the members readers would read differently, with no
// schema: a case pair and a repeat, at any depth; clean arguments pass.
func TestMembersWithoutASchema(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"path":"a.txt","PATH":"../x"}`:   "PATH",
		`{"o":{"k":1,"k":2}}`:              "o.k",
		`{"path":"a.txt","p\u0061th":"x"}`: "path",
	} {
		err := Members([]byte(raw))
		env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err)
		if err == nil || env.ErrorType != envelope.ValidationError || len(env.Fields) != 1 || env.Fields[0].Field != want {
			t.Errorf("%s: %v, want one field %s", raw, err, want)
		}
	}
	if err := Members([]byte(`{"path":"a.txt","n":[{"a":1},{"a":2}]}`)); err != nil {
		t.Errorf("clean arguments: %v", err)
	}
}
