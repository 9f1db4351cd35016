package envelope_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func TestStepsFuncRunsWithTheClassifiedCode(t *testing.T) {
	t.Parallel()
	var got envelope.Code
	fn := func(_ context.Context, _ mcp.CallToolRequest, code envelope.Code, err error) ([]string, bool) {
		got = code
		return []string{"Call shop_search first."}, false
	}
	env := expect(t, serve(t, failing(envelope.AddStepsFunc(envelope.ErrNotFound, fn))).Call(nil), envelope.NotFound)
	assert.Equal(t, envelope.NotFound, got)
	assert.Equal(t, append([]string{"Call shop_search first."}, envelope.DefaultNextSteps(envelope.NotFound)...), env.NextSteps)

	replace := func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) {
		return []string{"Only this."}, true
	}
	env = expect(t, serve(t, failing(envelope.AddStepsFunc(envelope.ErrNotFound, replace))).Call(nil), envelope.NotFound)
	assert.Equal(t, []string{"Only this."}, env.NextSteps)

	// A panicking function is logged and the envelope goes out without it.
	logs := middlewaretest.NewLog(t)
	boom := func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) { panic("steps bug") }
	env = expect(t, serve(t, failing(envelope.AddStepsFunc(envelope.ErrNotFound, boom)), envelope.WithLogger(logs.Logger())).Call(nil), envelope.NotFound)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), env.NextSteps)
	assert.NotNil(t, logs.Find("panic", "steps bug"))

	assert.NoError(t, envelope.AddStepsFunc(nil, fn))
	assert.Same(t, envelope.ErrNotFound, envelope.AddStepsFunc(envelope.ErrNotFound, nil))
}

func TestContextStepsFunc(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Equal(t, ctx, envelope.ContextWithStepsFunc(ctx, nil))

	outer := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return next(envelope.ContextWithStepsFunc(ctx, func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) {
				return []string{"From the context."}, false
			}), req)
		}
	}
	own := envelope.AddStepsFunc(envelope.ErrNotFound, func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) {
		return []string{"From the error."}, false
	})
	logs := middlewaretest.NewLog(t)
	r := middlewaretest.New(t, shopTool, failing(own), outer, envelope.Middleware(envelope.WithLogger(logs.Logger()))).Call(nil)
	env := expect(t, r, envelope.NotFound)
	assert.Equal(t, []string{"From the error.", "From the context."}, env.NextSteps[:2])
	assert.Empty(t, logs.Records(), "no step function panicked")
}

func TestSecretsInNextStepsAreRedacted(t *testing.T) {
	t.Parallel()
	err := envelope.AddNextSteps(envelope.ErrNotFound, "Retry with the key sk-live0123456789abcdefghij.", "Call shop_search.")
	r := serve(t, failing(err)).Call(nil)
	env := expect(t, r, envelope.NotFound)
	r.NoLeak("sk-live0123456789abcdefghij")
	assert.Equal(t, "Call shop_search.", env.NextSteps[1], "a clean step is kept as it is")
	assert.Contains(t, env.NextSteps[0], "Retry with the key ")
}
