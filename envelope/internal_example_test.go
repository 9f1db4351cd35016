package envelope_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
)

// The server's own missing directory wraps fs.ErrNotExist as a missing
// file the agent named does; Internal says it is the server's, so the
// agent is not told to verify an identifier it never gave.
func ExampleInternal() {
	_, err := os.ReadDir("/nonexistent-mcpguard/memory")
	quiet := envelope.WithLogger(slog.New(slog.DiscardHandler))
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_graph"
	for _, e := range []error{fmt.Errorf("load store: %w", err), envelope.Internal(fmt.Errorf("load store: %w", err))} {
		env, _ := envelope.FromResult(envelope.ErrorResult(context.Background(), req, e, quiet))
		fmt.Println(env.ErrorType)
	}
	// Output:
	// not_found
	// internal_error
}
