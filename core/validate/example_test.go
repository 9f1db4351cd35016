package validate_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"What to search for" validate:"required,min=3"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
}

func ExampleSchema() {
	fmt.Println(string(validate.Schema[searchArgs]()))
	// Output:
	// {"type":"object","properties":{"query":{"description":"What to search for","type":"string","minLength":3},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"],"additionalProperties":false}
}

func ExampleBinder_Bind() {
	b := validate.NewBinder[searchArgs]()
	ctx := context.Background()

	args, err := b.Bind(ctx, "shop_search", json.RawMessage(`{"query":"lamp","limit":5}`), nil)
	fmt.Println(args.Query, args.Limit, err)

	_, err = b.Bind(ctx, "shop_search", json.RawMessage(`{"query":"la","limit":99}`), nil)
	env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_search"}, err)
	fmt.Println(env.ErrorType)
	for _, f := range env.Fields {
		fmt.Println(f.Field, f.Rule, f.Param)
	}
	// Output:
	// lamp 5 <nil>
	// validation_error
	// query min 3
	// limit max 50
}
