package envelope_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// A server's own missing file wraps fs.ErrNotExist as the agent's missing
// file does. Unmarked, it told the agent to verify an identifier it never
// gave and showed the server's message; marked with Internal it is the
// server's internal_error, ahead of the standard library rule and of a
// mapping for the same sentinel.
func TestInternalOutranksTheStandardLibraryRules(t *testing.T) {
	t.Parallel()
	_, own := os.ReadDir("/nonexistent-mcpguard/memory-store")
	assert.ErrorIs(t, own, fs.ErrNotExist)
	var marked error
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, marked }
	tool := mcp.NewTool("read_graph")
	for name, opts := range map[string][]envelope.Option{
		"default":      nil,
		"with mapping": {envelope.WithMapping(fs.ErrNotExist, envelope.NotFound)},
		"with mapper":  {envelope.WithMapper(func(err error) (envelope.Code, bool) { return envelope.NotFound, errors.Is(err, fs.ErrNotExist) })},
	} {
		srv := middlewaretest.New(t, tool, h, envelope.Middleware(opts...))
		marked = fmt.Errorf("load store: %w", own)
		srv.Call(nil).ExpectError(envelope.NotFound).ExpectNextStep("Verify the identifier")

		marked = envelope.Internal(fmt.Errorf("load store: %w", own))
		r := srv.Call(nil).ExpectError(envelope.InternalError)
		assert.NotContains(t, string(r.Raw), "memory-store", name)
		assert.NotContains(t, string(r.Raw), "load store", name)
		assert.NotContains(t, string(r.Raw), "Verify the identifier", name)
	}
	assert.ErrorIs(t, envelope.Internal(own), fs.ErrNotExist, "what it wraps is still reachable")
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(fmt.Errorf("x: %w", envelope.Internal(own))))
	assert.NoError(t, envelope.Internal(nil))
}
