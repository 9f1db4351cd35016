package middleware_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
)

// BenchmarkSealedState compares, in one run, a 2026-07-28 tools/call
// through HandleMessage and Default, with and without the sealing layer:
// a plain call (the layer passes through), the first round (the handler
// hands out a state, sealed on the way out) and the retry (the echo is
// opened before the handler runs).
//
//	go test -run '^$' -bench SealedState -benchmem -count 6 ./middleware | benchstat -col /seal -
func BenchmarkSealedState(b *testing.B) {
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.RequestState != "" {
			return mcp.NewToolResultText("deployed"), nil
		}
		if req.GetString("mode", "") == "plain" {
			return mcp.NewToolResultText("ok"), nil
		}
		return server.NewInputRequestBuilder("step=2;env=staging;order=8d1f3c").
			Elicit("confirm", mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: "sure?",
				RequestedSchema: map[string]any{"type": "object"}}).
			ToolResult(), nil
	}
	msg := func(mode, state string) []byte {
		params := map[string]any{
			"name":      "deploy",
			"arguments": map[string]any{"service": "api", "mode": mode},
			"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
			},
		}
		if state != "" {
			params["requestState"] = state
			params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{}}}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		return b
	}
	for _, sealed := range []bool{false, true} {
		var opts []middleware.Option
		name := "seal=off"
		if sealed {
			name = "seal=on"
		} else {
			opts = append(opts, middleware.WithoutStateSealing())
		}
		s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
		s.Use(middleware.Default(opts...)...)
		s.AddTool(mcp.NewTool("deploy", mcp.WithString("service"), mcp.WithString("mode")), h)
		ctx := context.Background()
		first, _ := json.Marshal(s.HandleMessage(ctx, msg("ask", "")))
		var resp struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if json.Unmarshal(first, &resp) != nil || resp.Result.RequestState == "" {
			b.Fatalf("first round: %s", first)
		}
		for _, round := range []struct {
			name string
			msg  []byte
		}{
			{"plain", msg("plain", "")},
			{"first", msg("ask", "")},
			{"retry", msg("ask", resp.Result.RequestState)},
		} {
			b.Run("round="+round.name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = s.HandleMessage(ctx, round.msg)
				}
			})
		}
	}
}
