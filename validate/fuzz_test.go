package validate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/validate"
)

// FuzzArgs feeds arbitrary bytes as a call's arguments, in process (where
// even malformed JSON can arrive) and through HandleMessage. Whatever the
// input: there is always a result, never a JSON-RPC error or a Go error,
// and an error result carries a valid validation_error envelope.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query":"agents"}`, `{"query":"ab","limit":9999,"category":"ai/ml"}`, `{"card_id":"../../etc/passwd"}`,
		`[]`, `null`, `"x"`, `{"query":`, `{"Query":"x"}`, `{"filters":[{"name":7},{"op":"like"}]}`,
		`{"extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{"limit":1e999999999}`, `{"limit":5.0,"max_price":null}`, `{"quer\u0079":"x"}`, `{"query":"a\ud800b"}`,
	} {
		f.Add([]byte(seed))
	}
	h := validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, validate.WithMaxDepth(16), validate.WithMaxBytes(1<<16))
	s := searchServer(f, validate.WithMaxDepth(16), validate.WithMaxBytes(1<<16))
	f.Fuzz(func(t *testing.T, args []byte) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "shop_search"
		req.Params.Arguments = json.RawMessage(args)
		res, err := h(context.Background(), req)
		if err != nil || res == nil {
			t.Fatalf("Handler(%q) = %v, %v", args, res, err)
		}
		if res.IsError {
			env, ok := envelope.FromResult(res)
			if !ok || env.ErrorType != envelope.ValidationError || len(env.Fields) == 0 {
				t.Fatalf("Handler(%q): bad envelope %+v", args, res)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatalf("Handler(%q): result does not marshal: %v", args, err)
			}
		}
		// Through the wire, when the whole message is still JSON.
		if !json.Valid(args) {
			return
		}
		r := callRaw(t, s, "shop_search", string(args))
		if r.rpcErr {
			// mcp-go refuses some arguments before any tool layer runs
			// (e.g. a number that overflows float64); that is its
			// parse error, not ours.
			return
		}
		if r.isErr && (r.env == nil || r.env.ErrorType != envelope.ValidationError) {
			t.Fatalf("wire(%q): %s", args, r.raw)
		}
	})
}
