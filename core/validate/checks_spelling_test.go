package validate_test

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

// TestBinderChecksItsSchemaInAnySpelling: the binder's schema with its
// numbers spelled otherwise (3.0, 3e0: one number to JSON Schema), its
// names escaped and its members reordered is still the binder's: schemas
// are compared in core/wire's canonical form.
func TestBinderChecksItsSchemaInAnySpelling(t *testing.T) {
	t.Parallel()
	type spelledArgs struct {
		Query string `json:"query" validate:"required,min=3"`
	}
	b := validate.NewBinder[spelledArgs]()
	own := string(b.Schema())
	if !strings.Contains(own, `"minLength":3`) {
		t.Fatalf("the binder's schema has no minLength 3: %s", own)
	}
	for _, s := range []string{
		strings.Replace(own, `"minLength":3`, `"minLength":3.0`, 1),
		strings.Replace(own, `"minLength":3`, `"minLength":3e0`, 1),
		strings.Replace(own, `"minLength":3`, `"min\u004cength":3`, 1),
	} {
		if !b.Checks([]byte(s)) {
			t.Errorf("the binder's own schema, spelled %s, is not its own", s)
		}
	}
	if b.Checks([]byte(strings.Replace(own, `"minLength":3`, `"minLength":3.5`, 1))) {
		t.Error("minLength 3.5 is the binder's 3")
	}
}
