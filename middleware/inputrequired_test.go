package middleware_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// deployState is the requestState the deploy tool hands out: opaque to the
// client, and shaped like what a sealed state looks like (a long base64url
// run), which a redactor could take for a token.
const deployState = "v1.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVkcGx1Z3h5enp5.c2VhbGVk"

// deploy asks the client to confirm before it deploys (SEP-2322): the
// first round answers input_required with an elicitation and deployState;
// the retry carries the answer and the state back.
type deploy struct {
	mu     sync.Mutex
	states []string // the requestState of each round, as the handler read it
}

func (d *deploy) handle(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	d.mu.Lock()
	d.states = append(d.states, req.Params.RequestState)
	d.mu.Unlock()
	if answer := server.ElicitationResponse(req.Params.InputResponses, "confirm"); answer != nil {
		if req.Params.RequestState != deployState {
			return nil, envelope.New(envelope.ValidationError, "the request state did not come back as handed out")
		}
		return mcp.NewToolResultText("deployed to " + req.GetString("environment", "")), nil
	}
	return server.NewInputRequestBuilder(deployState).
		Elicit("confirm", mcp.ElicitationParams{
			Mode:    mcp.ElicitationModeForm,
			Message: "Deploy to " + req.GetString("environment", "") + "?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"approve": map[string]any{"type": "boolean"}},
				"required":   []string{"approve"},
			},
		}).ToolResult(), nil
}

func (d *deploy) rounds() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.states...)
}

// approver is the client's user: it approves every elicitation.
type approver struct{ asked int }

func (a *approver) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked++
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true},
	}}, nil
}

// deployServer serves the deploy tool, with an enum its declared schema
// enforces, under layers.
func deployServer(d *deploy, layers ...server.ToolHandlerMiddleware) *server.MCPServer {
	s := server.NewMCPServer("deploy", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.Use(layers...)
	s.AddTool(mcp.NewTool("deploy", mcp.WithString("environment", mcp.Required(), mcp.Enum("staging", "production"))), d.handle)
	return s
}

// callDeploy calls deploy through mcp-go's own 2026-07-28 client, which
// answers the elicitation and retries by itself.
func callDeploy(t *testing.T, s *server.MCPServer, a *approver) *mcp.CallToolResult {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(s, client.WithElicitationHandler(a))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "inputrequired_test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	require.Equal(t, mcp.ProtocolVersion20260728, res.ProtocolVersion, "the client must speak the multi round-trip revision")
	var call mcp.CallToolRequest
	call.Params.Name = "deploy"
	call.Params.Arguments = map[string]any{"environment": "production"}
	out, err := c.CallTool(ctx, call)
	require.NoError(t, err)
	return out
}

// TestInputRequiredPassesThroughDefault: under the one line (with the
// logger, and redaction of successes on), an input_required result is not
// an envelope, its requestState reaches the client and comes back to the
// handler byte for byte, the client's retry completes the call, and the
// log has a record per round, neither of them a failure.
func TestInputRequiredPassesThroughDefault(t *testing.T) {
	log := middlewaretest.NewLog(t)
	d := &deploy{}
	a := &approver{}
	s := deployServer(d, middleware.Default(middleware.WithLogger(log.Logger()),
		middleware.WithRedactOptions(redact.WithRedactSuccesses()))...)
	res := callDeploy(t, s, a)
	require.False(t, res.IsError, "the flow ended in an error: %+v", res)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "deployed to production", res.Content[0].(mcp.TextContent).Text)
	assert.Equal(t, 1, a.asked, "the client's user was not asked once")
	assert.Equal(t, []string{"", deployState}, d.rounds(), "the handler did not read back the state it handed out")
	var outcomes []any
	for _, r := range log.Records() {
		if r["msg"] != "mcpguard: tool call" {
			continue
		}
		outcomes = append(outcomes, r["outcome"])
		assert.Nil(t, r["error_type"], "a round was recorded with an error type: %v", r)
	}
	// The first round asked for input: its own outcome, as on go-sdk
	// (core/pipeline), neither a failure nor a success.
	assert.Equal(t, []any{"input_required", "success"}, outcomes, "want one record per round: %v", log.Records())
}

// TestInputRequiredRoundsAreLimitedAsCalls: each round of a multi
// round-trip call is a call for the limits: with a burst of one, the
// client's retry is refused with rate_limited and never reaches the
// handler.
func TestInputRequiredRoundsAreLimitedAsCalls(t *testing.T) {
	d := &deploy{}
	s := deployServer(d, middleware.Default(middleware.WithLimits(limit.Rate(0.001, 1)))...)
	res := callDeploy(t, s, &approver{})
	require.True(t, res.IsError, "the retry passed a spent rate limit: %+v", res)
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.True(t, env.Retryable, "a rate refusal is retryable")
	assert.Equal(t, []string{""}, d.rounds(), "the refused retry reached the handler")
}

// TestInputRequiredRoundsAreValidatedAsCalls: a retry is checked against
// the tool's declared schema like a first call: a client that echoes the
// state back with arguments the schema refuses gets validation_error, and
// the handler does not run; the input_required answer itself reaches the
// client whole, on the wire.
func TestInputRequiredRoundsAreValidatedAsCalls(t *testing.T) {
	d := &deploy{}
	s := deployServer(d, middleware.Default()...)
	meta := map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
	}
	first := send(t, s, map[string]any{"_meta": meta, "name": "deploy", "arguments": map[string]any{"environment": "production"}})
	assert.Contains(t, first, `"resultType":"input_required"`)
	var answer struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(first), &answer))
	state := answer.Result.RequestState
	require.NotEmpty(t, state, "the input_required answer lost its requestState: %s", first)
	assert.NotEqual(t, deployState, state, "Default hands the handler's state out sealed (middleware.SealState)")
	assert.Contains(t, first, `"inputRequests":{"confirm":`)
	assert.NotContains(t, first, `"isError":true`)
	assert.NotContains(t, first, "error_type")

	retry := send(t, s, map[string]any{"_meta": meta, "name": "deploy", "arguments": map[string]any{"environment": "prod; rm -rf /"},
		"requestState": state, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}})
	assert.Contains(t, retry, `validation_error`, "a retry with arguments the schema refuses: %s", retry)
	assert.Equal(t, []string{""}, d.rounds(), "the handler ran on a refused retry")
}

// send hands one tools/call to s through HandleMessage and returns the
// response as a transport writes it.
func send(t *testing.T, s *server.MCPServer, params map[string]any) string {
	t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	require.NoError(t, err)
	raw, err := json.Marshal(s.HandleMessage(context.Background(), req))
	require.NoError(t, err)
	return strings.TrimSpace(string(raw))
}
