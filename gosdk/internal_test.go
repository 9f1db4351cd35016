package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// gosdk.Internal marks the server's own missing file as internal_error,
// ahead of the fs.ErrNotExist rule and of a mapping for it; unmarked, the
// memory store's missing directory told the agent to verify an identifier.
func TestInternalOutranksTheStandardLibraryRules(t *testing.T) {
	t.Parallel()
	_, own := os.ReadDir("/nonexistent-mcpguard/memory-store")
	for name, opts := range map[string][]gosdk.Option{
		"default":      nil,
		"with mapping": {gosdk.WithMapping(fs.ErrNotExist, gosdk.NotFound)},
	} {
		s := newGuardedServer(opts...)
		lowLevel(s, "read_graph", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if string(req.Params.Arguments) == `{"marked":true}` {
				return nil, gosdk.Internal(fmt.Errorf("load store: %w", own))
			}
			return nil, fmt.Errorf("load store: %w", own)
		})
		c := gosdktest.Connect(t, s)
		c.Call("read_graph", nil).ExpectError(gosdk.NotFound).ExpectNextStep("Verify the identifier")
		r := c.Call("read_graph", map[string]any{"marked": true}).ExpectError(gosdk.InternalError)
		assert.NotContains(t, string(r.Raw), "memory-store", name)
		assert.NotContains(t, string(r.Raw), "Verify the identifier", name)
	}
	assert.True(t, errors.Is(gosdk.Internal(own), fs.ErrNotExist))
}
