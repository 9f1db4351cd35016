package hints_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// A hint naming a tool the server does not have (a typo: search_node for
// search_nodes) is never sent to the agent, which would loop on "unknown
// tool"; the layer finds it at the first call, without hints.Check, and
// logs it once as a warning. The other steps still go out.
func TestAStepNamingAnUnknownToolIsNotSent(t *testing.T) {
	t.Parallel()
	rule := hints.For("memory_read",
		hints.OnError(envelope.NotFound, hints.Call("search_node", "to find the entity's name"), hints.Text("Check the entity's name.")),
		hints.OnSuccess(hints.Call("search_node", "for related entities"), hints.Call("memory_write", "to add an observation")),
	)
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := captureLog()
			s := server.NewMCPServer("memory", "1.0.0")
			o.apply(s, hints.New([]hints.Rule{rule}, hints.WithLogger(logger)).Middleware(), defaultChain())
			s.AddTool(mcp.NewTool("memory_read", mcp.WithString("name")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if req.GetString("name", "") == "" {
					return nil, envelope.New(envelope.NotFound, "no such entity")
				}
				return mcp.NewToolResultText("an entity"), nil
			})
			for _, name := range []string{"search_nodes", "memory_write"} {
				s.AddTool(mcp.NewTool(name), okHandler)
			}
			srv := middlewaretest.FromServer(t, s)
			for range 2 {
				r := srv.CallTool("memory_read", map[string]any{"name": "alice"}).ExpectSuccess()
				assert.NotContains(t, string(r.Raw), "search_node\\u0020")
				assert.NotContains(t, r.Text(), "search_node ")
				assert.Equal(t, []string{"Call memory_write to add an observation."}, metaSteps(t, r.Raw))
				e := srv.CallTool("memory_read", nil).ExpectError(envelope.NotFound)
				assert.Equal(t, "Check the entity's name.", e.Envelope.NextSteps[0])
				assert.NotContains(t, strings.Join(e.Envelope.NextSteps, "\n"), "search_node ")
			}
			assert.Equal(t, 1, strings.Count(logs.String(), `unknown tool \"search_node\"`), logs.String())
			assert.Contains(t, logs.String(), `"level":"WARN"`)
		})
	}
}
