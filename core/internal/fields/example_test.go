package fields_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
)

// Both checks word a failure alike: the message sums up the field errors,
// and a path names a member as the agent wrote it.
func ExampleFail() {
	p := fields.PathKey("filters[0]", "max price")
	err := fields.Fail([]envelope.FieldError{
		{Field: p, Rule: "unknown", Message: fields.UnknownMessage("filters[0]", p)},
	}, 0)
	fmt.Println(err)
	fmt.Println(fields.Suggest("Seurity", []string{"AI/ML", "Security"}))
	// Output:
	// Invalid argument: filters[0]["max price"] is not a member of filters[0].
	// Security
}
