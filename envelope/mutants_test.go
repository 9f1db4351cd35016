package envelope_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// Tests for mutants gremlins found alive (scripts/mutation): each pins a
// boundary or a branch the other tests did not tell apart.

func TestFromResultPrefersTheStructuredEnvelope(t *testing.T) {
	t.Parallel()
	env, ok := envelope.FromResult(&mcp.CallToolResult{IsError: true, StructuredContent: &envelope.Envelope{ErrorType: envelope.NotFound, Message: "m"}})
	require.True(t, ok, "no text is needed when the structured envelope is there")
	assert.Equal(t, envelope.NotFound, env.ErrorType)
}

// Every walk of an error chain visits at most 256 errors.
func TestChainWalkBound(t *testing.T) {
	t.Parallel()
	wrap := func(n int) error {
		err := error(envelope.ErrNotFound)
		for range n {
			err = fmt.Errorf("w: %w", err)
		}
		return err
	}
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(wrap(255)), "the 256th error is visited")
	assert.Equal(t, envelope.InternalError, envelope.CodeOf(wrap(256)), "the 257th is not")
}

func TestInternalWithOptions(t *testing.T) {
	t.Parallel()
	res := envelope.Internal(context.Background(), "shop_tool", "inc_0123456789abcdef", envelope.WithInternalMessage("Our side broke."))
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(env.Message, "Our side broke."), env.Message)
}

func TestMessageOfExactlyTheBoundIsNotCut(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("x", envelope.MaxMessageBytes)
	env := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed)
	assert.Equal(t, msg, env.Message)
}

// A message of bytes that never start a character (not UTF-8 at all) is
// cut to nothing rather than past its start.
func TestCutOfBytesThatStartNoCharacter(t *testing.T) {
	t.Parallel()
	r := serve(t, failing(envelope.New(envelope.ExecutionFailed, strings.Repeat("\x80", 3*envelope.MaxMessageBytes)))).Call(nil)
	env := expect(t, r, envelope.ExecutionFailed)
	assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes+len(" …(truncated)"))
}

func TestOwnEnvelopeWithoutToolGetsTheCallsTool(t *testing.T) {
	t.Parallel()
	env := &envelope.Envelope{ErrorType: envelope.NotFound, Message: "no card", NextSteps: []string{"Call shop_search."}}
	res := envelope.NewRenderer().Render(context.Background(), env)
	got := expect(t, serve(t, returning(res)).Call(nil), envelope.NotFound)
	assert.Equal(t, "shop_tool", got.Tool)
}

func TestUntrustedEnvelopeKeepsItsFields(t *testing.T) {
	t.Parallel()
	text := `{"success":false,"error_type":"validation_error","tool":"shop_tool","message":"bad limit",` +
		`"fields":[{"field":"limit","rule":"max","param":"50","allowed":["1","50"]}],"next_steps":["x"],"retryable":false}`
	r := serve(t, returning(mcp.NewToolResultError(text))).Call(nil).ExpectError(envelope.ValidationError).ExpectField("limit", "max")
	require.NotNil(t, r.Field("limit"))
	assert.Equal(t, []string{"1", "50"}, r.Field("limit").Allowed, "a clean allowed list is kept as it is")
}

// A StepsFunc installed in the context by a layer outside the envelope
// layer runs, after the error's own, and no function is called that is not
// there (a panic would be logged).
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
	own := envelope.WithStepsFunc(envelope.ErrNotFound, func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) {
		return []string{"From the error."}, false
	})
	logs := middlewaretest.NewLog(t)
	r := middlewaretest.New(t, shopTool, failing(own), outer, envelope.Middleware(envelope.WithLogger(logs.Logger()))).Call(nil)
	env := expect(t, r, envelope.NotFound)
	assert.Equal(t, []string{"From the error.", "From the context."}, env.NextSteps[:2])
	assert.Empty(t, logs.Records(), "no step function panicked")
}
