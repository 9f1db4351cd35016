package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

func searchFiles(context.Context, *mcp.CallToolRequest, searchIn) (*mcp.CallToolResult, hits, error) {
	return nil, hits{}, nil
}

type searchIn struct {
	Path    string `json:"path" validate:"required"`
	Pattern string `json:"pattern" validate:"required"`
}

// gosdk.AddTool with an explicit InputSchema that disagrees with In panics
// at registration with a sentence that says where; one that agrees, in any
// of the forms go-sdk takes, is advertised as it is.
func TestAddToolRefusesAnInputSchemaThatDisagreesWithIn(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]any{
		"raw JSON": json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		"jsonschema.Schema": &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"path": {Type: "string"}, "pattern": {Type: "string"},
		}, Required: []string{"path"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				msg := fmt.Sprint(recover())
				for _, want := range []string{`gosdk.AddTool: tool "search_files"`, "disagrees with the arguments type", "pattern is required by the type", "gosdk_test.searchIn"} {
					if !strings.Contains(msg, want) {
						t.Fatalf("panic %q, want it to contain %q", msg, want)
					}
				}
			}()
			gosdk.AddTool(newPlainServer(), &mcp.Tool{Name: "search_files", InputSchema: schema}, searchFiles)
		})
	}
	agrees := json.RawMessage(`{"type":"object","description":"find files","properties":{"path":{"type":"string"},"pattern":{"type":"string"}},"required":["path","pattern"]}`)
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search_files", InputSchema: agrees}, searchFiles)
	if got := canonical(t, tools(t, connect(t, s))["search_files"].InputSchema); got != canonical(t, agrees) {
		t.Fatalf("advertised %s, want the declared %s", got, agrees)
	}
}

type memoryIn struct {
	Name         string   `json:"name" validate:"required" jsonschema:"the entity's name"`
	Observations []string `json:"observations,omitempty"`
	Limit        *int     `json:"limit,omitempty" validate:"omitempty,min=1"`
	Deep         *struct {
		Tag string `json:"tag"`
	} `json:"deep,omitempty"`
}

// A tool migrating from mcp.AddTool keeps the schema go-sdk inferred for
// In (nullable pointers and slices, every member without omitempty
// required): it agrees, and AddTool takes it.
func TestAddToolTakesGoSDKsOwnInferenceForIn(t *testing.T) {
	t.Parallel()
	inferred, err := jsonschema.For[memoryIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	gosdk.AddTool(newPlainServer(), &mcp.Tool{Name: "open_nodes", InputSchema: inferred},
		func(context.Context, *mcp.CallToolRequest, memoryIn) (*mcp.CallToolResult, hits, error) {
			return nil, hits{}, nil
		})
}
