package gosdk_test

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/gosdk"
)

// What a call ended as, read off a go-sdk result as the front reads it.
func ExampleAnswerOf() {
	for _, r := range []*mcp.CallToolResult{
		{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "no such order"}}, IsError: true},
		nil,
	} {
		fmt.Println(pipeline.Decide(gosdk.AnswerOf(r)))
	}
	// Output:
	// success
	// error_result
	// missing
}
