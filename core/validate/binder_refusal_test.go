package validate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// stampArgs is a struct that validator/v10 refuses to validate at all:
// it takes any type convertible to time.Time for a time, not a struct.
type stampArgs time.Time

// When validator/v10 refuses the value itself rather than a field of it,
// Bind fails with an error of its own (an internal_error on the wire),
// never handing the handler arguments that were not validated and never
// an empty validation_error.
func TestValidatorRefusingTheValueIsNoSuccess(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[stampArgs]()
	v, err := b.Bind(context.Background(), tool, json.RawMessage(`{}`), nil)
	if v != nil || err == nil {
		t.Fatalf("Bind = %v, %v; want an error", v, err)
	}
	if envelope.CodeOf(err) == envelope.ValidationError || !strings.HasPrefix(err.Error(), "validate: validator: ") {
		t.Fatalf("want validator/v10's own error, got %v", err)
	}
	if o := call(t, b, `{}`); o.ok || o.env.ErrorType != envelope.InternalError || len(o.env.Fields) != 0 {
		t.Fatalf("want an internal_error without fields, got %s", o.raw)
	}
}
