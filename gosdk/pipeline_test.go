package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// A multi round-trip result asking the client for input is not a failure
// (core/pipeline's input_required): no envelope, no forged toolFailure,
// and its own outcome in the call's log record.
func TestInputRequiredIsNoFailure(t *testing.T) {
	log := gosdktest.NewLog(t)
	asks := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{},
		Meta: mcp.Meta{"io.modelcontextprotocol/toolFailure": map[string]any{"code": "access_denied"}, "trace": "t1"}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return asks, nil }
	h := gosdk.Middleware(gosdk.WithLogger(log.Logger()))(next)
	res, err := h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ask", Arguments: []byte(`{}`)}})
	assert.NoError(t, err)
	r := res.(*mcp.CallToolResult)
	assert.False(t, r.IsError)
	assert.Nil(t, r.StructuredContent)
	assert.Equal(t, mcp.Meta{"trace": "t1"}, r.Meta, "the handler's toolFailure is dropped")
	assert.NotNil(t, log.Find("outcome", "input_required"), "records: %v", log.Records())
}
