package wiretest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/wiretest"
)

// A front of your own (another SDK, a proxy) checks its wire with the same
// rules as middlewaretest and gosdktest: decode the JSON-RPC response a
// client received, then assert on it.
func ExampleDecode() {
	env := core.NewRenderer().Error(context.Background(), core.Call{Tool: "shop_get"}, fmt.Errorf("product p-9: %w", core.ErrNotFound))
	text, _ := json.Marshal(env)
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"isError": true, "content": []any{map[string]any{"type": "text", "text": string(text)}},
	}})

	// In a real test this is the *testing.T of your test function.
	t := &testing.T{}
	r, err := wiretest.Decode(t, "shop_get", raw, map[string]any{"id": "p-9"})
	if err != nil {
		panic(err)
	}
	r.ExpectError(core.NotFound)
	r.NoLeak()
	fmt.Println(r.Envelope.ErrorType, r.Envelope.Message)
	fmt.Println("failed:", t.Failed())
	// Output:
	// not_found product p-9: not found
	// failed: false
}
