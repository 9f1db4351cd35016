package gosdk_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// A StepsFunc attached to an error, or carried by the call's context,
// computes the envelope's next steps from the request and the code, as the
// mcp-go front's envelope.AddStepsFunc does; replace drops the defaults.
func TestStepsFuncsComputeNextStepsFromTheRequest(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	byName := func(_ context.Context, req *mcp.CallToolRequest, code gosdk.Code, err error) ([]string, bool) {
		return []string{"Call shop_search for " + req.Params.Name + " (" + string(code) + ")"}, req.Params.Name == "shop_replace"
	}
	for _, name := range []string{"shop_get", "shop_replace"} {
		lowLevel(s, name, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, gosdk.AddStepsFunc(gosdk.ErrNotFound, byName)
		})
	}
	var seen error
	lowLevel(s, "shop_text", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no such product"}}}
		res.IsError = true
		return res, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(gosdk.ContextWithStepsFunc(ctx, func(_ context.Context, _ *mcp.CallToolRequest, _ gosdk.Code, err error) ([]string, bool) {
				seen = err
				return []string{"Call shop_search first."}, false
			}), method, req)
		}
	})
	c := gosdktest.Connect(t, s, gosdktest.AllowMiddlewareOutside())
	r := c.Call("shop_get", nil).ExpectError(gosdk.NotFound).ExpectNextStep("shop_search for shop_get (not_found)")
	if want := append([]string{"Call shop_search for shop_get (not_found)", "Call shop_search first."}, gosdk.DefaultNextSteps(gosdk.NotFound)...); !slices.Equal(r.Envelope.NextSteps, want) {
		t.Errorf("next_steps %q, want %q", r.Envelope.NextSteps, want)
	}
	r = c.Call("shop_replace", nil).ExpectError(gosdk.NotFound)
	if slices.Contains(r.Envelope.NextSteps, gosdk.DefaultNextSteps(gosdk.NotFound)[0]) {
		t.Errorf("replace kept the defaults: %q", r.Envelope.NextSteps)
	}
	c.Call("shop_text", nil).ExpectNextStep("Call shop_search first.")
	var text gosdk.ResultText
	if !errors.As(seen, &text) || string(text) != "no such product" {
		t.Errorf("a handler's own error text reaches the StepsFunc as a ResultText, got %#v", seen)
	}
}

// WithTrustedEnvelopes keeps the next steps of an envelope a handler
// returned as text; without it they are replaced by the code's defaults.
func TestWithTrustedEnvelopesKeepsAHandlersOwnSteps(t *testing.T) {
	t.Parallel()
	upstream := `{"success":false,"error_type":"not_found","tool":"shop_get","message":"gone","next_steps":["Call shop_search."],"retryable":false}`
	relay := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: upstream}}}
		res.IsError = true
		return res, nil
	}
	for _, trusted := range []bool{false, true} {
		var opts []gosdk.Option
		if trusted {
			opts = append(opts, gosdk.WithTrustedEnvelopes())
		}
		s := newGuardedServer(opts...)
		lowLevel(s, "shop_get", relay)
		r := gosdktest.Connect(t, s).Call("shop_get", nil).ExpectError(gosdk.NotFound)
		if got := slices.Contains(r.Envelope.NextSteps, "Call shop_search."); got != trusted {
			t.Errorf("trusted %v: next_steps %q", trusted, r.Envelope.NextSteps)
		}
	}
}

// The log record's keys are exported under the mcp-go front's names.
func TestLogKeysNameTheRecordsAttributes(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	s := newGuardedServer(gosdk.WithLogger(log.Logger(), gosdk.WithArguments()))
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	gosdktest.Connect(t, s).Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound)
	for _, rec := range log.Records() {
		if rec["msg"] != gosdk.LogMessage {
			continue
		}
		for _, k := range []string{gosdk.LogKeyTool, gosdk.LogKeyDuration, gosdk.LogKeyOutcome, gosdk.LogKeyErrorType, gosdk.LogKeyArguments} {
			if _, ok := rec[k]; !ok {
				t.Errorf("record %v has no %q", rec, k)
			}
		}
		return
	}
	t.Fatal("no per-call record")
}

type noteArgs struct {
	Note string `json:"note"`
}

// WithMaxBytes and WithMaxDepth bound what gosdk.AddTool decodes: larger
// or deeper arguments are a validation_error before the handler runs.
func TestAddToolBoundsTheArgumentsItDecodes(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	ran := false
	note := func(context.Context, *mcp.CallToolRequest, noteArgs) (*mcp.CallToolResult, any, error) {
		ran = true
		return nil, nil, nil
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_note"}, note, gosdk.WithMaxBytes(64))
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_deep"}, note, gosdk.WithMaxDepth(2))
	c := gosdktest.Connect(t, s)
	c.Call("shop_note", map[string]any{"note": strings.Repeat("x", 100)}).ExpectError(gosdk.ValidationError)
	c.Call("shop_deep", map[string]any{"note": "x", "extra": map[string]any{"a": map[string]any{"b": 1}}}).ExpectError(gosdk.ValidationError)
	if ran {
		t.Error("the handler ran on arguments over the bounds")
	}
	c.Call("shop_note", map[string]any{"note": "short"}).ExpectSuccess()
	if gosdk.DefaultMaxBytes <= 64 || gosdk.DefaultMaxDepth <= 2 {
		t.Errorf("defaults %d bytes, %d levels", gosdk.DefaultMaxBytes, gosdk.DefaultMaxDepth)
	}
}
