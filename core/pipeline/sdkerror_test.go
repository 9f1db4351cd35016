package pipeline_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/pipeline"
)

// The SDKs' own texts, as their servers send them (mcp-go v1.2.1's
// server.go and errors.go, go-sdk v1.8.0's mcp/mrtr.go), and texts that
// only look like them.
func TestReadSDKErrorKnowsTheSDKsTexts(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int
		msg  string
		want pipeline.SDKError
	}{
		{"mcp-go's recovered panic", -32603, "panic recovered in shop_get tool handler: runtime error: index out of range", pipeline.SDKPanic},
		{"mcp-go's recovered panic of a task", -32603, "panic in task tool handler shop_get: boom", pipeline.SDKPanic},
		{"mcp-go's handler without a result", -32603, "tool 'shop_get' handler returned no result", pipeline.SDKMissing},
		{"go-sdk's refused result", -32603, "server bug: result has both content and inputRequests", pipeline.SDKRefusedResult},
		{"another text about the tool", -32603, "tool 'shop_get' handler failed", pipeline.NotSDKError},
		{"another tool returned no result", -32603, "tool 'other' handler returned no result", pipeline.NotSDKError},
		{"a resource handler's panic", -32603, "panic recovered in res://x resource handler: boom", pipeline.NotSDKError},
		{"the panic prefix alone", -32603, "panic recovered in ", pipeline.NotSDKError},
		{"a task panic without its value", -32603, "panic in task tool handler shop_get", pipeline.NotSDKError},
		{"a panic text with another code", -32602, "panic recovered in shop_get tool handler: boom", pipeline.NotSDKError},
		{"the refusal with another code", -32000, "server bug: result has both content and inputRequests", pipeline.NotSDKError},
		{"no result with another code", -32602, "tool 'shop_get' handler returned no result", pipeline.NotSDKError},
		{"the refusal, extended", -32603, "server bug: result has both content and inputRequests!", pipeline.NotSDKError},
		{"an internal error of the handler's own", -32603, "database is down", pipeline.NotSDKError},
	} {
		if got := pipeline.ReadSDKError(tc.code, tc.msg, "shop_get"); got != tc.want {
			t.Errorf("%s: ReadSDKError(%d, %q) = %d, want %d", tc.name, tc.code, tc.msg, got, tc.want)
		}
	}
}
