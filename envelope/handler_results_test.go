package envelope_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
)

// Error results a handler built itself, read and re-rendered by the envelope
// layer: their code, message, fields, tool and _meta survive as a client
// relies on them.

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

func TestUntrustedEnvelopeKeepsItsFields(t *testing.T) {
	t.Parallel()
	text := `{"success":false,"error_type":"validation_error","tool":"shop_tool","message":"bad limit",` +
		`"fields":[{"field":"limit","rule":"max","param":"50","allowed":["1","50"]}],"next_steps":["x"],"retryable":false}`
	r := serve(t, returning(mcp.NewToolResultError(text))).Call(nil).ExpectError(envelope.ValidationError).ExpectField("limit", "max")
	require.NotNil(t, r.Field("limit"))
	assert.Equal(t, []string{"1", "50"}, r.Field("limit").Allowed, "a clean allowed list is kept as it is")
}

func TestOwnEnvelopeWithoutToolGetsTheCallsTool(t *testing.T) {
	t.Parallel()
	env := &envelope.Envelope{ErrorType: envelope.NotFound, Message: "no card", NextSteps: []string{"Call shop_search."}}
	res := envelope.NewRenderer().Render(context.Background(), env)
	got := expect(t, serve(t, returning(res)).Call(nil), envelope.NotFound)
	assert.Equal(t, "shop_tool", got.Tool)
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

// A handler's own error text is read for what it says (core/envelope's
// ClassifyText); a Go error is still classified by its chain first, and an
// unclassified one keeps its message off the wire whatever it says.
func TestFailureTextIsClassified(t *testing.T) {
	t.Parallel()
	r := serve(t, returning(mcp.NewToolResultError("ENOENT: no such file or directory, open '/x'"))).Call(nil)
	env := expect(t, r, envelope.NotFound)
	assert.False(t, env.Retryable)
	assert.Equal(t, "ENOENT: no such file or directory, open '/x'", env.Message)

	r = serve(t, returning(mcp.NewToolResultError("connect ECONNREFUSED 127.0.0.1:5432"))).Call(nil)
	env = expect(t, r, envelope.ExecutionFailed)
	assert.True(t, env.Retryable)

	r = serve(t, returning(mcp.NewToolResultError("3 tests failed (TestNotFoundHandler)"))).Call(nil)
	env = expect(t, r, envelope.ExecutionFailed)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.ExecutionFailed), env.NextSteps)

	r = serve(t, failing(fmt.Errorf("ENOENT: no such file or directory: %w", envelope.ErrValidation))).Call(nil)
	expect(t, r, envelope.ValidationError)
	r = serve(t, failing(errors.New("connect ECONNREFUSED 10.0.0.5:5432 as postgres"))).Call(nil)
	env = expect(t, r, envelope.InternalError)
	assert.NotContains(t, env.Message, "10.0.0.5")
}

// TestFailureTextOnLaterLines: git-mcp-go's failures say what went wrong
// on their second line, below a generic first one, and
// mcp-filesystem-server's state their own fix; on the wire the agent gets
// the type the second line names and the server's own fix as its next
// step (before, both were execution_failed, with generic steps).
func TestFailureTextOnLaterLines(t *testing.T) {
	t.Parallel()
	r := serve(t, returning(mcp.NewToolResultError("Failed to show commit: git command failed: exit status 128\n"+
		"Output: fatal: ambiguous argument 'deadbeef': unknown revision or path not in the working tree.\n"+
		"Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'\n"))).Call(nil)
	env := expect(t, r, envelope.NotFound)
	require.NotEmpty(t, env.NextSteps)
	assert.Contains(t, env.NextSteps[0], "revision", "git's step, not its hint about '--'")
	assert.NotContains(t, strings.Join(env.NextSteps, " "), "Use '--'")

	r = serve(t, returning(mcp.NewToolResultError("Error: /srv/data/d is a directory. Use recursive=true to delete directories."))).Call(nil)
	env = expect(t, r, envelope.ValidationError)
	require.NotEmpty(t, env.NextSteps)
	assert.Equal(t, "Use recursive=true to delete directories.", env.NextSteps[0])

	// A line that ends with a colon quotes what follows: server-filesystem's
	// failed edit quotes the text it looked for.
	r = serve(t, returning(mcp.NewToolResultError("Could not find exact match for edit:\nthe user was not found"))).Call(nil)
	expect(t, r, envelope.ExecutionFailed)
}
