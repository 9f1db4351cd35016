package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// The article's v1.7.0 search_skills, audited as a tool list.
func ExampleTools() {
	searchSkills := mcp.NewTool("search_skills",
		mcp.WithDescription("Search the MarketNow marketplace for MCP-compatible skills..."),
		mcp.WithString("query", mcp.Description("Natural language or keyword search...")),
		mcp.WithString("category", mcp.Description("Filter by category (optional). One of: AI/ML, Data, Web/API, Security, DevOps, Communication, etc.")),
		mcp.WithNumber("max_price", mcp.Description("Maximum price in USD (optional, e.g. 2.99)")),
		mcp.WithNumber("limit", mcp.Description("Max results to return (default 10, max 50)")),
	)
	r := audit.Tools([]mcp.Tool{searchSkills}, audit.WithPrefix("marketnow_"))
	for _, f := range r.AtLeast(audit.Warning) {
		fmt.Println(f.Severity, f.Check, f.Path)
	}
	fmt.Println(r.Summary())
	// Output:
	// error A.namespace name
	// warning B.when description
	// warning C.additional inputSchema
	// error C.enum inputSchema.properties.category
	// warning C.max_length inputSchema.properties.category
	// error C.bounds inputSchema.properties.limit
	// warning C.bounds inputSchema.properties.max_price
	// warning C.max_length inputSchema.properties.query
	// warning E.read_only annotations.readOnlyHint
	// A 0%, B 0%, C 0%, E 0%, F 100%, overall 20%
}

// An in-process server built with mcpguard, audited with the probe: the
// way a server's own test asserts full marks.
func ExampleServer() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_get_order",
		mcp.WithDescription("Get one order's status. Use this after shop_list_orders has returned an order_id, then tell the user."),
		mcp.WithString("order_id", mcp.Required(), mcp.Pattern(`^ord_[0-9]{6}$`)),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := req.GetArguments()["order_id"].(string); !ok {
			return nil, envelope.New(envelope.ValidationError, "order_id must be a string like ord_123456")
		}
		return nil, envelope.Wrap(envelope.NotFound, errors.New("no such order"))
	})
	s.AddTool(mcp.NewTool("shop_list_orders",
		mcp.WithDescription("List the user's recent orders. Use this when the user asks about an order, then call shop_get_order with its order_id."),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("[]"), nil
	})

	r, err := audit.Server(context.Background(), s, audit.WithProbe())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Summary())
	fmt.Println(r.Perfect())
	// Output:
	// A 100%, B 100%, C 100%, D 100%, E 100%, F 100%, overall 100%
	// true
}

// A failing report, checked against thresholds as a CI gate would.
func ExampleReport_Failed() {
	r := audit.Tools([]mcp.Tool{mcp.NewTool("x_echo",
		mcp.WithDescription("Echo a message back. Use this when testing the connection, then continue."),
		mcp.WithString("message", mcp.Required()),
		mcp.WithSchemaAdditionalProperties(false),
	)})
	fmt.Println(r.Failed(audit.Error), r.Failed(audit.Warning))
	fmt.Println(r.WithCheck(audit.CheckMaxLength)[0].Fix)
	// Output:
	// false true
	// add "maxLength" (and "minLength" if empty strings are invalid)
}

// Pinning tool definitions and checking a later version against them: the
// baseline holds one line per tool, and a changed enum is reported with a
// diff by JSON pointer.
func ExampleWithBaseline() {
	v1 := []mcp.Tool{mcp.NewTool("shop_search",
		mcp.WithDescription("Search products. Use this when the user wants one, then call shop_get_product."),
		mcp.WithString("category", mcp.Enum("books", "games")),
	)}
	var pinned bytes.Buffer
	base, err := audit.Tools(v1, audit.WithServerName("shop 1.0")).Baseline()
	if err == nil {
		err = base.Write(&pinned) // --baseline FILE
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(pinned.String())

	base, err = audit.ReadBaseline(&pinned) // --check-baseline FILE
	if err != nil {
		fmt.Println(err)
		return
	}
	v2 := []mcp.Tool{mcp.NewTool("shop_search",
		mcp.WithDescription("Search products. Use this when the user wants one, then call shop_get_product."),
		mcp.WithString("category", mcp.Enum("books", "games", "admin")),
	)}
	for _, f := range audit.Tools(v2, audit.WithBaseline(base)).WithCheck(audit.CheckBaselineChanged) {
		fmt.Println(f.Severity, f.Check, f.Tool)
		fmt.Println(f.Diff[0])
	}
	// Output:
	// {"mcpguard_baseline": 2, "server": "shop 1.0", "tools": [
	//   {"name": "shop_search", "sha256": "4f61b10bfcbc65f51f7307b4b5da740eabaa220155dc1f814ca1bf7962d8833a", "definition": {"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false},"description":"Search products. Use this when the user wants one, then call shop_get_product.","inputSchema":{"properties":{"category":{"enum":["books","games"],"type":"string"}},"required":[],"type":"object"},"name":"shop_search"}}
	// ]}
	// error baseline.changed shop_search
	// /inputSchema/properties/category/enum: ["books","games"] → ["books","games","admin"]
}

// Accepting a finding on a legacy server, with a reason: it no longer
// fails the run, and stays visible in the report.
func ExampleWithIgnore() {
	ig, err := audit.ReadIgnore(strings.NewReader(`{"ignore": [
		{"check": "C.max_length", "tool": "shop_search", "reason": "free text by design; capped in the handler"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := []mcp.Tool{mcp.NewTool("shop_search",
		mcp.WithDescription("Search products. Use this when the user wants one, then show the results."),
		mcp.WithString("query", mcp.Required()),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	)}
	r := audit.Tools(tools, audit.WithIgnore(ig), audit.WithFailOn(audit.Warning))
	fmt.Println(r.Failed())
	for _, f := range r.Ignored {
		fmt.Println(f.Check, f.Path, "-", f.Reason)
	}
	// Output:
	// false
	// C.max_length inputSchema.properties.query - free text by design; capped in the handler
}

// A SARIF 2.1.0 log for code scanning: one result per finding, located by
// tool and JSON pointer.
func ExampleReport_WriteSARIF() {
	r := audit.Tools([]mcp.Tool{mcp.NewTool("shop_search",
		mcp.WithDescription("Search products. Use this when the user wants one, then show the results."),
		mcp.WithNumber("limit"),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	)})
	var b bytes.Buffer
	if err := r.WriteSARIF(&b, audit.SARIFOptions{ArtifactURI: "server/tools.go"}); err != nil {
		fmt.Println(err)
		return
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					LogicalLocations []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("SARIF", log.Version)
	for _, res := range log.Runs[0].Results {
		fmt.Println(res.Level, res.RuleID, res.Locations[0].LogicalLocations[0].FullyQualifiedName)
	}
	// Output:
	// SARIF 2.1.0
	// note A.namespace shop_search/name
	// warning C.bounds shop_search/inputSchema/properties/limit
}
