package envelope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// gate refuses a call whose "path" is "/etc", passes any other on with
// its path marked, and, when it leaves, tells the client the path it
// passed on.
type gate struct{}

func (gate) Admit(_ context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	path := req.GetString("path", "")
	if path == "/etc" {
		return req, envelope.New(envelope.AccessDenied, "not under "+path)
	}
	req.Params.Arguments = map[string]any{"path": path + " (admitted)"}
	return req, nil
}

type leavingGate struct{ gate }

func (leavingGate) Leave(_ context.Context, req mcp.CallToolRequest, a envelope.Answer) envelope.Answer {
	if a.Err != nil {
		return a
	}
	text, _ := envelope.TextOf(a.Result.Content[0])
	return envelope.Answer{Result: mcp.NewToolResultText(text + ", left " + req.GetString("path", ""))}
}

func TestGateIsALayerOfItsOwn(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("fs_read", mcp.WithString("path"))
	read := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("read " + req.GetString("path", "")), nil
	}
	srv := middlewaretest.New(t, tool, read, envelope.Gate(gate{}))
	srv.Call(map[string]any{"path": "/etc"}).ExpectError(envelope.AccessDenied).ExpectMessage("not under /etc")
	assert.Equal(t, "read /srv (admitted)", srv.Call(map[string]any{"path": "/srv"}).ExpectSuccess().Text(),
		"the handler receives the call as the gate passed it on")

	left := middlewaretest.New(t, tool, read, envelope.Gate(leavingGate{}))
	assert.Equal(t, "read /srv (admitted), left /srv (admitted)", left.Call(map[string]any{"path": "/srv"}).ExpectSuccess().Text(),
		"a gate that leaves hands out the answer")
	failing := middlewaretest.New(t, tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("disk gone")
	}, envelope.Middleware(), envelope.Gate(leavingGate{}))
	failing.Call(map[string]any{"path": "/srv"}).ExpectError(envelope.InternalError)

	assert.Panics(t, func() { envelope.Gate(nil) })
}
