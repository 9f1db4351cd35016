package validate_test

import "github.com/mcpguard/mcpguard/core/validate"

func init() {
	// One definition, shared by the schema's pattern and the runtime check.
	validate.RegisterPattern("card_id", `[A-Z]{2}-[0-9]{4}`)
}

// Filter and SearchArgs are the mcp-go front's test types, for the
// differential test.
type Filter struct {
	Name string `json:"name" validate:"required,alpha"`
	Op   string `json:"op,omitempty" validate:"omitempty,oneof=eq ne lt gt"`
}

type SearchArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API' Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	CardID   string   `json:"card_id,omitempty" validate:"omitempty,card_id"`
	Filters  []Filter `json:"filters,omitempty" validate:"omitempty,max=5,dive"`
	APIKey   string   `json:"api_key,omitempty" validate:"omitempty,min=40"`
	Extra    any      `json:"extra,omitempty"`
	Price    *float64 `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
}
