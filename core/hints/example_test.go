package hints_test

import (
	"context"
	"fmt"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

// An SDK's front instantiates the vocabulary with its own request and
// result types; here, stand-ins.
type (
	request struct{ tool string }
	result  struct{ text string }
)

var errExpired = fmt.Errorf("session expired")

// A front looks the call's tool up and asks the Tool for its steps; a
// renderer asks for a failure's through the context Watch returns.
func Example() {
	rule := hints.For("shop_order",
		hints.OnErrorIs[request, *result](errExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
		hints.OnError[request, *result](envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
		hints.OnSuccessFunc(func(_ context.Context, req request, res *result) []hints.Step {
			return []hints.Step{hints.Text("Saw " + res.text + ".")}
		}),
	)
	reg := hints.NewRegistry([]hints.Rule[request, *result]{rule}, nil)
	fmt.Println(reg.Lookup("shop_plain") == nil)

	t := reg.Lookup("shop_order")
	ctx, w := t.Watch(context.Background())
	env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_order", Request: request{"shop_order"}},
		envelope.Wrap(envelope.AuthenticationFailed, errExpired))
	fmt.Println(env.NextSteps[0], w.Pending())

	steps, text := t.Success(context.Background(), request{"shop_order"}, &result{"3 rows"})
	fmt.Println(steps)
	fmt.Println(text)
	fmt.Println(hints.CheckNames([]string{"shop_order", "shop_search"}, rule))
	// Output:
	// true
	// Call shop_authenticate with your API key, then retry. false
	// [Saw 3 rows.]
	// Next steps:
	// - Saw 3 rows.
	// hints: hints of tool "shop_order" name unknown tool "shop_authenticate"
}
