package envelope_test

import (
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
)

// What a call ended as, read off what its handler answered, as every
// layer of this front reads it.
func ExampleAnswerOf() {
	asks := mcp.NewToolResultText("which account?")
	asks.ResultType = pipeline.ResultTypeInputRequired
	for _, a := range []struct {
		res *mcp.CallToolResult
		err error
	}{
		{mcp.NewToolResultText("done"), nil},
		{mcp.NewToolResultError("no such order"), nil},
		{asks, nil},
		{nil, errors.New("db down")},
		{nil, nil},
	} {
		fmt.Println(pipeline.Decide(envelope.AnswerOf(a.res, a.err)))
	}
	// Output:
	// success
	// error_result
	// input_required
	// go_error
	// missing
}
