package e2e_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// deployState is the requestState deployUpstream hands out, shaped like a
// sealed state (a long base64url run), which a redactor takes for a token.
const deployState = "v1.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVkcGx1Z3h5enp5.c2VhbGVk"

// deployUpstream asks the client to confirm before it deploys (SEP-2322),
// and says on the retry whether the state came back as it handed it out.
func deployUpstream(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer := server.ElicitationResponse(req.Params.InputResponses, "confirm"); answer != nil {
		intact := "state intact"
		if req.Params.RequestState != deployState {
			intact = "state changed"
		}
		return mcp.NewToolResultText("deployed to " + req.GetString("environment", "") + ", " + intact), nil
	}
	return server.NewInputRequestBuilder(deployState).
		Elicit("confirm", mcp.ElicitationParams{
			Mode:    mcp.ElicitationModeForm,
			Message: "Deploy?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"approve": map[string]any{"type": "boolean"}},
			},
		}).ToolResult(), nil
}

// yes approves every elicitation.
type yes struct{}

func (yes) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true},
	}}, nil
}

// TestProxyInputRequired: mcp-go's own 2026-07-28 client, with an
// elicitation handler, completes a multi round-trip call through
// mcpguard-proxy over stdio and HTTP, with and without
// --redact-successes: the input_required answer is neither an envelope
// nor redacted, and the state comes back to the upstream as handed out.
// Its first call, before the client listed the tools, is checked against
// the declared schema, over HTTP too.
func TestProxyInputRequired(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(taskServer()))
	t.Cleanup(upstream.Close)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{nil, {"--redact-successes"}} {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(tr+strings.Join(flags, ""), func(t *testing.T) {
				var tp transport.Interface
				if tr == "stdio" {
					tp = transport.NewStdioWithOptions(proxy, []string{taskServerEnv + "=1"}, append(flags, "--", self))
				} else {
					tp, err = transport.NewStreamableHTTP(startProxy(t, proxy, upstream.URL+"/mcp", flags...))
					if err != nil {
						t.Fatal(err)
					}
				}
				c := client.NewClient(tp, client.WithElicitationHandler(yes{}))
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := c.Start(ctx); err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				var init mcp.InitializeRequest
				init.Params.ClientInfo = mcp.Implementation{Name: "e2e-mrtr", Version: "1"}
				res, err := c.Initialize(ctx, init)
				if err != nil {
					t.Fatal(err)
				}
				if res.ProtocolVersion != mcp.ProtocolVersion20260728 {
					t.Fatalf("negotiated %s, want the multi round-trip revision", res.ProtocolVersion)
				}
				// The client has not listed the tools: the proxy lists them
				// itself, as a request of this revision must be sent
				// (headers and _meta), and checks the first call.
				var call mcp.CallToolRequest
				call.Params.Name = "deploy"
				call.Params.Arguments = map[string]any{"environment": "moon"}
				out, err := c.CallTool(ctx, call)
				if err != nil {
					t.Fatal(err)
				}
				if env, _ := out.StructuredContent.(map[string]any); !out.IsError || env["error_type"] != "validation_error" {
					t.Fatalf("a first call outside the declared enum, before any tools/list: %+v", out)
				}
				call.Params.Arguments = map[string]any{"environment": "production"}
				out, err = c.CallTool(ctx, call)
				if err != nil {
					t.Fatal(err)
				}
				if out.IsError || len(out.Content) != 1 || out.Content[0].(mcp.TextContent).Text != "deployed to production, state intact" {
					t.Fatalf("the multi round-trip call through the proxy: %+v", out)
				}
			})
		}
	}
}
