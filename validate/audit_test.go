package validate_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/validate"
)

// readmeSearchArgs is the README's struct, as written there.
type readmeSearchArgs struct {
	Query    string `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API' Security"`
	Limit    int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	CardID   string `json:"card_id,omitempty" validate:"omitempty,card_id"`
}

// The structs of the README and of this package's examples, optional
// fields written the plain way (omitempty, not pointers), score 100% on
// the audit's schema rule: the derived schemas need no anyOf wrapper for
// the audit to see their enums and bounds.
func TestExampleStructsPassAuditRuleC(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	v.RegisterPattern("sku", `SKU-[0-9]{6}`)
	type skuArgs struct {
		SKU string `json:"sku" validate:"required,sku"`
	}
	tools := []mcp.Tool{
		mcp.NewTool("shop_search", mcp.WithDescription("Search the catalog by words, category and price; returns product IDs for shop_get_product."),
			validate.InputSchema[readmeSearchArgs]()),
		mcp.NewTool("shop_find", mcp.WithDescription("Find products by words and category; returns product IDs for shop_get_product."),
			validate.InputSchema[ShopSearchArgs]()),
		mcp.NewTool("shop_sku", mcp.WithDescription("Look a product up by its SKU; returns its name and price."),
			validate.InputSchema[skuArgs](validate.WithValidator(v))),
		mcp.NewTool("shop_price", mcp.WithDescription("Get the price of one product by its SKU."),
			validate.InputSchema[priceArgs](), validate.OutputSchema[price]()),
	}
	r := audit.Tools(tools)
	for _, f := range r.Findings {
		if f.Rule == audit.RuleSchemas {
			t.Errorf("%s", f)
		}
	}
	if s := r.Scores.Rule(audit.RuleSchemas); s == nil || s.Percent != 100 {
		t.Errorf("rule C: %+v", s)
	}
}
