package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

type smokeArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API' Security"`
	Limit    int      `json:"limit" validate:"min=1,max=50"`
	Tags     []string `json:"tags,omitempty" validate:"omitempty,max=5,unique,dive,min=1"`
}

func TestSmoke(t *testing.T) {
	fmt.Println(string(validate.Schema[smokeArgs]()))
	s := server.NewMCPServer("t", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[smokeArgs]()), middleware.Wrap(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := validate.ArgsFrom[smokeArgs](ctx)
		return mcp.NewToolResultText(fmt.Sprint(a)), nil
	}, validate.Args[smokeArgs]()))
	for _, args := range []string{`{"query":"abc","limit":5}`, `{"query":"ab","limit":9999,"category":"ai/ml","qeury":1,"tags":["a","a",""]}`, `{"query":5}`, `[1]`, `{"query":"abc","limit":5.0}`} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":` + args + `}}`
		out := s.HandleMessage(context.Background(), json.RawMessage(msg))
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
}
