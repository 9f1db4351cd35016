package audit_test

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// pinnedTools are definitions that test what a pin reads alike and apart:
// a title, annotations, an output schema, a raw schema with keywords
// mcp-go's own types do not hold, numbers in several spellings, and text
// with characters encoding/json escapes.
func pinnedTools() []mcp.Tool {
	type out struct {
		ID    string  `json:"id" jsonschema:"required"`
		Price float64 `json:"price"`
	}
	return []mcp.Tool{
		mcp.NewTool("pin_search",
			mcp.WithToolTitle("Search <the> catalogue & more"), mcp.WithTitleAnnotation("Search"),
			mcp.WithDescription("Search products. Use this when the user wants one — then call pin_get. Prices in €."),
			mcp.WithString("query", mcp.Required(), mcp.MaxLength(200)),
			mcp.WithNumber("limit", mcp.Min(1), mcp.Max(1e21), mcp.DefaultNumber(0.1)),
			mcp.WithString("sort", mcp.Enum("price", "name")),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithOpenWorldHintAnnotation(false),
		),
		mcp.NewTool("pin_get",
			mcp.WithDescription("Get one product by ID. Use this after pin_search."),
			mcp.WithString("id", mcp.Required(), mcp.Pattern(`^p_[0-9]+$`)),
			mcp.WithOutputSchema[out](),
		),
		mcp.NewToolWithRawSchema("pin_raw", "A tool whose schema is raw JSON, keywords and all.",
			json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
				"properties":{"n":{"type":"integer","minimum":-5,"maximum":12345678901234567890},"x":{"anyOf":[{"type":"string"},{"type":"null"}]}},
				"required":["n"]}`)),
	}
}

// pinnedServer is an mcp-go server that lists tools.
func pinnedServer(tools []mcp.Tool) *server.MCPServer {
	s := server.NewMCPServer("pinned", "1.0.0")
	for _, t := range tools {
		s.AddTool(t, nil)
	}
	return s
}
