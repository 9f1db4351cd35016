package validate_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/core/validate"
)

// SchemaMismatch lists, by JSON path, where an agent following the
// declared schema would be refused.
func ExampleSchemaMismatch() {
	type Args struct {
		ID    string `json:"id" validate:"required"`
		Limit int    `json:"limit,omitempty"`
	}
	declared := `{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"number"},"verbose":{"type":"boolean"}}}`
	fmt.Println(validate.SchemaMismatch([]byte(declared), validate.Schema[Args]()))
	// Output:
	// the declared input schema disagrees with the arguments type: id is required by the type but declared optional; limit is declared "number" where the type takes "integer"; verbose is declared but the type has no such member, so it is refused
}
