package hints_test

import (
	"context"
	"fmt"

	"github.com/mcpguard/mcpguard/core/hints"
)

// A front merges a success's steps into its SDK's result with
// MergeSuccess: here the content is a []string and a text item is the
// text itself.
func ExampleMergeSuccess() {
	type req struct{}
	type res struct{}
	rules := []hints.Rule[req, res]{hints.For("shop_order",
		hints.OnSuccess[req, res](hints.Call("shop_track", "to follow the delivery")))}
	tool := hints.NewRegistry(rules, nil).Lookup("shop_order")

	meta := map[string]any{hints.MetaKey: []any{"Tell the user the order number."}}
	content, meta, ok := hints.MergeSuccess(context.Background(), tool, req{}, res{},
		[]string{`{"order":"O-1"}`}, meta, func(text string) string { return text })
	fmt.Println(ok)
	for _, c := range content {
		fmt.Println(c)
	}
	fmt.Println(meta[hints.MetaKey])
	// Output:
	// true
	// {"order":"O-1"}
	// Next steps:
	// - Call shop_track to follow the delivery.
	// [Call shop_track to follow the delivery. Tell the user the order number.]
}
