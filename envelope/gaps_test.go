package envelope_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// Paths of the envelope layer that its other tests never took, each
// checked on the wire.

func TestLegacyCodesInAnyCase(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]envelope.Code{
		`{"error":"misconfigured","message":"no DSN"}`:   envelope.ConfigurationError,
		`{"error":"Not-Found","message":"no card 7"}`:    envelope.NotFound,
		`{"code":"access_denied","message":"not yours"}`: envelope.AccessDenied,
		`{"error_type":"teapot2","message":"who knows"}`: envelope.ExecutionFailed,
	} {
		r := serve(t, returning(mcp.NewToolResultError(text))).Call(nil)
		env := expect(t, r, want)
		if want != envelope.ExecutionFailed {
			assert.NotContains(t, env.Message, "{", "the message is the object's message, not its JSON")
		}
	}
}

func TestStepsFuncRunsWithTheClassifiedCode(t *testing.T) {
	t.Parallel()
	var got envelope.Code
	fn := func(_ context.Context, _ mcp.CallToolRequest, code envelope.Code, err error) ([]string, bool) {
		got = code
		return []string{"Call shop_search first."}, false
	}
	env := expect(t, serve(t, failing(envelope.WithStepsFunc(envelope.ErrNotFound, fn))).Call(nil), envelope.NotFound)
	assert.Equal(t, envelope.NotFound, got)
	assert.Equal(t, append([]string{"Call shop_search first."}, envelope.DefaultNextSteps(envelope.NotFound)...), env.NextSteps)

	replace := func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) {
		return []string{"Only this."}, true
	}
	env = expect(t, serve(t, failing(envelope.WithStepsFunc(envelope.ErrNotFound, replace))).Call(nil), envelope.NotFound)
	assert.Equal(t, []string{"Only this."}, env.NextSteps)

	// A panicking function is logged and the envelope goes out without it.
	logs := middlewaretest.NewLog(t)
	boom := func(context.Context, mcp.CallToolRequest, envelope.Code, error) ([]string, bool) { panic("steps bug") }
	env = expect(t, serve(t, failing(envelope.WithStepsFunc(envelope.ErrNotFound, boom)), envelope.WithLogger(logs.Logger())).Call(nil), envelope.NotFound)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), env.NextSteps)
	assert.NotNil(t, logs.Find("panic", "steps bug"))

	assert.NoError(t, envelope.WithStepsFunc(nil, fn))
	assert.Same(t, envelope.ErrNotFound, envelope.WithStepsFunc(envelope.ErrNotFound, nil))
}

func TestSecretsInNextStepsAreRedacted(t *testing.T) {
	t.Parallel()
	err := envelope.WithNextSteps(envelope.ErrNotFound, "Retry with the key sk-live0123456789abcdefghij.", "Call shop_search.")
	r := serve(t, failing(err)).Call(nil)
	env := expect(t, r, envelope.NotFound)
	r.NoLeak("sk-live0123456789abcdefghij")
	assert.Equal(t, "Call shop_search.", env.NextSteps[1], "a clean step is kept as it is")
	assert.Contains(t, env.NextSteps[0], "Retry with the key ")
}

func TestCutNeverSplitsACharacter(t *testing.T) {
	t.Parallel()
	// One ASCII byte first, so byte 2048 falls inside a two-byte é.
	msg := "x" + strings.Repeat("é", envelope.MaxMessageBytes)
	env := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed)
	assert.True(t, utf8.ValidString(env.Message))
	assert.Equal(t, "x"+strings.Repeat("é", envelope.MaxMessageBytes/2-1)+" …(truncated)", env.Message)
}

func TestToolFailureMetaKeepsTheResultsOwnMeta(t *testing.T) {
	t.Parallel()
	for name, fields := range map[string]map[string]any{"empty": {}, "one": {"trace": "t-1"}} {
		res := mcp.NewToolResultError("upstream refused")
		res.Meta = &mcp.Meta{AdditionalFields: fields}
		r := serve(t, returning(res), envelope.WithToolFailureMeta()).Call(nil)
		expect(t, r, envelope.ExecutionFailed)
		require.NotNil(t, r.CallResult.Meta, name)
		assert.Contains(t, r.CallResult.Meta.AdditionalFields, envelope.ToolFailureMetaKey, name)
		for k, v := range fields {
			assert.Equal(t, v, r.CallResult.Meta.AdditionalFields[k], name)
		}
	}
}

func TestFromResultReadsPointerContent(t *testing.T) {
	t.Parallel()
	text := `{"success":false,"error_type":"not_found","tool":"t","message":"m","next_steps":["s"],"retryable":false}`
	env, ok := envelope.FromResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: text}}})
	require.True(t, ok)
	assert.Equal(t, envelope.NotFound, env.ErrorType)
	_, ok = envelope.FromResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{(*mcp.TextContent)(nil)}})
	assert.False(t, ok)
}

func TestURLElicitationByPointerStaysAProtocolError(t *testing.T) {
	t.Parallel()
	elicit := &mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	r := serve(t, failing(errors.Join(errors.New("need consent"), elicit))).Call(nil)
	require.NotNil(t, r.ProtocolError, "%s", r.Raw)
	assert.Equal(t, mcp.URL_ELICITATION_REQUIRED, r.ProtocolError.Code)
}
