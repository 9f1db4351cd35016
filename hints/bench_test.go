package hints_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
)

var (
	okResult  = mcp.NewToolResultText("ok")
	benchRule = []hints.Rule{
		hints.For("shop_order",
			hints.OnError(envelope.NotFound,
				hints.Call("shop_search", "to find the order's ID"),
				hints.Call("shop_list_orders", "to see the caller's recent orders"),
			),
		),
		hints.For("shop_cancel", hints.OnSuccess(hints.Call("shop_order", "to see the order's new status"))),
	}
	errNotFound = envelope.New(envelope.NotFound, "no such order")
)

func okTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return okResult, nil }

func failTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errNotFound
}

func request(tool string) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	return req
}

// TestNoRuleToolAllocatesNothing proves the pass-through promise: a tool
// without a rule costs the hints layer no allocation, and its result is
// returned as is.
func TestNoRuleToolAllocatesNothing(t *testing.T) {
	h := hints.Middleware(benchRule...)(okTool)
	ctx, req := context.Background(), request("shop_plain")
	allocs := testing.AllocsPerRun(1000, func() {
		res, err := h(ctx, req)
		if res != okResult || err != nil {
			t.Fatal("result changed")
		}
	})
	if allocs != 0 {
		t.Fatalf("no-rule tool: %v allocs per call, want 0", allocs)
	}
	// A tool whose only hints are success hints: an error result no hint
	// applies to passes untouched and free too.
	h = hints.Middleware(hints.For("shop_plain", hints.OnSuccess(hints.Text("Check the output."))))(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errNotFound
	})
	allocs = testing.AllocsPerRun(1000, func() {
		if _, err := h(ctx, req); err != errNotFound {
			t.Fatal("error changed")
		}
	})
	if allocs != 0 {
		t.Fatalf("error of a success-only tool: %v allocs per call, want 0", allocs)
	}
}

// BenchmarkNoRuleTool measures what the hints layer adds to a call of a
// tool it has no rule for: compare "bare" with "hints".
func BenchmarkNoRuleTool(b *testing.B) {
	ctx, req := context.Background(), request("shop_plain")
	run := func(b *testing.B, h server.ToolHandlerFunc) {
		b.ReportAllocs()
		for b.Loop() {
			if res, _ := h(ctx, req); res != okResult {
				b.Fatal("result changed")
			}
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, okTool) })
	b.Run("hints", func(b *testing.B) { run(b, hints.Middleware(benchRule...)(okTool)) })
}

// BenchmarkTwoStaticHintsOnError measures a not_found error of a tool with
// two static hints, through the envelope layer, in both orders, against the
// envelope layer alone.
func BenchmarkTwoStaticHintsOnError(b *testing.B) {
	ctx, req := context.Background(), request("shop_order")
	env := envelope.Middleware()
	hm := hints.Middleware(benchRule...)
	run := func(b *testing.B, h server.ToolHandlerFunc, wantSteps int) {
		res, _ := h(ctx, req)
		if e, ok := envelope.FromResult(res); !ok || len(e.NextSteps) != wantSteps {
			b.Fatalf("unexpected result %+v", res)
		}
		b.ReportAllocs()
		for b.Loop() {
			h(ctx, req)
		}
	}
	b.Run("envelope only", func(b *testing.B) { run(b, middleware.Wrap(failTool, env), 1) })
	b.Run("hints inside envelope", func(b *testing.B) { run(b, middleware.Wrap(failTool, env, hm), 3) })
	b.Run("hints outside envelope", func(b *testing.B) { run(b, middleware.Wrap(failTool, hm, env), 3) })
}

// BenchmarkStaticSuccessHint measures a success with one static hint: the
// result is copied with a text item and a _meta key added.
func BenchmarkStaticSuccessHint(b *testing.B) {
	ctx, req := context.Background(), request("shop_cancel")
	h := hints.Middleware(benchRule...)(okTool)
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := h(ctx, req); res == okResult {
			b.Fatal("no hint added")
		}
	}
}

// BenchmarkErrorRuleToolSuccess measures a success of a tool that has
// error hints only: the result passes untouched, but the call pays for the
// context hook that lets an envelope layer inside see the hints.
func BenchmarkErrorRuleToolSuccess(b *testing.B) {
	ctx, req := context.Background(), request("shop_order")
	h := hints.Middleware(benchRule...)(okTool)
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := h(ctx, req); res != okResult {
			b.Fatal("result changed")
		}
	}
}

func TestInputRequiredResultsPassThrough(t *testing.T) {
	pending := &mcp.CallToolResult{Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired}, MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: "s1"}}
	h := hints.Middleware(hints.For("shop_cancel", hints.OnSuccess(hints.Text("Check the order.")), hints.OnError(envelope.NotFound, hints.Text("Check the ID."))))(
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return pending, nil })
	res, err := h(context.Background(), request("shop_cancel"))
	if res != pending || err != nil || len(pending.Content) != 0 || pending.Meta != nil {
		t.Fatalf("an input-required result was changed: %+v", res)
	}
}
