package envelope_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
)

// A tool a session adds for itself (server.SessionWithTools, as mcp-go's
// streamable HTTP sessions are) is looked up in the session before the
// server: a session tool that declares an output schema gets no
// structuredContent on failure, exactly like a server tool that does,
// since strict clients would validate it against that schema. Driven by
// mcp-go's own client over streamable HTTP.
func TestSessionToolWithOutputSchemaGetsNoStructuredContent(t *testing.T) {
	t.Parallel()
	hooks := &server.Hooks{}
	s := server.NewMCPServer("shop", "1", server.WithToolCapabilities(true), server.WithHooks(hooks))
	s.Use(envelope.Middleware())
	hooks.AddOnRegisterSession(func(_ context.Context, session server.ClientSession) {
		err := s.AddSessionTools(session.SessionID(),
			server.ServerTool{Tool: mcp.NewTool("session_count", mcp.WithOutputSchema[out]()), Handler: failing(envelope.ErrNotFound)},
			server.ServerTool{Tool: mcp.NewTool("session_plain"), Handler: failing(envelope.ErrNotFound)})
		if err != nil {
			t.Errorf("AddSessionTools: %v", err)
		}
	})
	// A server tool of the same name declares no output schema: the
	// session's definition is the one its calls run.
	s.AddTool(mcp.NewTool("session_count"), failing(envelope.ErrNotFound))
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)

	// mcp-go registers a streamable HTTP session, and so runs the hook that
	// gives it its tools, while the client listens on its standalone GET
	// stream: the legacy protocol's, which session tools still live on.
	//lint:ignore SA1019 session-scoped tools need the registered session only the legacy GET stream gives
	c, err := client.NewStreamableHttpClient(hs.URL, transport.WithContinuousListening())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}})
	require.NoError(t, err)

	call := func(name string) *mcp.CallToolResult {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}})
		require.NoError(t, err, "a tool failure is a result, not a JSON-RPC error")
		require.True(t, res.IsError)
		return res
	}
	assert.Nil(t, call("session_count").StructuredContent, "the session's tool declares an output schema")
	assert.NotNil(t, call("session_plain").StructuredContent, "a session tool without one gets the envelope as structuredContent")
}
