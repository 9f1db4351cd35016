package validate_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

type composeArgs struct {
	Title string `json:"title" validate:"max=80"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=9"`
}

// InputSchema composes with mcp-go's property options in either order:
// no panic inside mcp-go, no property dropped, T's properties first.
func TestInputSchemaComposes(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]mcp.ToolOption{
		"InputSchema first": {validate.InputSchema[composeArgs](), mcp.WithString("extra", mcp.Required(), mcp.MaxLength(5)), mcp.WithReadOnlyHintAnnotation(true)},
		"InputSchema last":  {mcp.WithString("extra", mcp.Required(), mcp.MaxLength(5)), mcp.WithReadOnlyHintAnnotation(true), validate.InputSchema[composeArgs]()},
	} {
		t.Run(name, func(t *testing.T) {
			s := middlewaretest.New(t, mcp.NewTool("t", opts...), benchOK)
			tools := s.ListTools()
			if len(tools) != 1 {
				t.Fatalf("tools/list: %s", tools)
			}
			var tool struct {
				InputSchema struct {
					Properties           map[string]json.RawMessage `json:"properties"`
					Required             []string                   `json:"required"`
					AdditionalProperties *bool                      `json:"additionalProperties"`
				} `json:"inputSchema"`
			}
			if err := json.Unmarshal(tools[0], &tool); err != nil {
				t.Fatal(err)
			}
			is := tool.InputSchema
			if string(is.Properties["title"]) != `{"maxLength":80,"type":"string"}` || string(is.Properties["extra"]) != `{"maxLength":5,"type":"string"}` ||
				string(is.Properties["limit"]) != `{"maximum":9,"minimum":1,"type":"integer"}` {
				t.Errorf("properties: %s", tools[0])
			}
			if !slices.Equal(is.Required, []string{"title", "extra"}) || is.AdditionalProperties == nil || *is.AdditionalProperties {
				t.Errorf("required %v, additionalProperties %v: %s", is.Required, is.AdditionalProperties, tools[0])
			}
			if i, j := strings.Index(string(tools[0]), `"title"`), strings.Index(string(tools[0]), `"extra"`); i < 0 || j < i {
				t.Errorf("T's properties come first: %s", tools[0])
			}
		})
	}
}

// What cannot compose fails when the tool is built, saying what to do.
func TestInputSchemaConflictsPanic(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		opts []mcp.ToolOption
		says string
	}{
		"same property":  {[]mcp.ToolOption{mcp.WithString("title"), validate.InputSchema[composeArgs]()}, `property "title" is also declared`},
		"raw schema":     {[]mcp.ToolOption{mcp.WithRawInputSchema(json.RawMessage(`{"type":"object"}`)), validate.InputSchema[composeArgs]()}, "use only one of them"},
		"mcp-go derived": {[]mcp.ToolOption{mcp.WithInputSchema[composeArgs](), validate.InputSchema[composeArgs]()}, "use only one of them"},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), c.says) {
					t.Errorf("panic %v, want one saying %q", p, c.says)
				}
			}()
			mcp.NewTool("t", c.opts...)
		})
	}
}
