package validate_test

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/validate"
)

// CheckTool finds a declared schema that drifted from the struct, which
// Args would contradict at every call.
func ExampleCheckTool() {
	type GrepArgs struct {
		Path    string `json:"path" validate:"required"`
		Pattern string `json:"pattern" validate:"required"`
	}
	drifted := mcp.NewTool("grep", mcp.WithString("path", mcp.Required()))
	fmt.Println(validate.CheckTool[GrepArgs](drifted))
	fmt.Println(validate.CheckTool[GrepArgs](mcp.NewTool("grep", validate.InputSchema[GrepArgs]())))
	// Output:
	// validate: CheckTool[validate_test.GrepArgs]: tool "grep": the declared input schema disagrees with the arguments type: pattern is required by the type but not declared
	// <nil>
}
