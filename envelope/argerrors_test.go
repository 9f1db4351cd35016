package envelope_test

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
)

// The texts of mcp-go v1.2.1's CallToolRequest.Require* helpers
// (mcp/tools.go), recognised by this front (core only offers the hook);
// TestMCPGoArgumentErrors calls the real functions.
func TestMCPGoArgumentErrorTexts(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][2]string{
		`required argument "id" not found`:                        {"id", "required"},
		`argument "id" is not an int`:                             {"id", "type"},
		`argument "path" is not a string`:                         {"path", "type"},
		`argument "ok" cannot be converted to bool`:               {"ok", "type"},
		`argument "ids" is not an int slice`:                      {"ids", "type"},
		`item 1 in argument "ids" is not an int`:                  {"ids", "type"},
		`item 12 in argument "xs" cannot be converted to float64`: {"xs", "type"},
	} {
		err := fmt.Errorf("get issue: %w", envelope.AddNextSteps(errors.New(text), "Send an id."))
		r := serve(t, failing(err)).Call(nil)
		env := expect(t, r, envelope.ValidationError)
		assert.False(t, env.Retryable, "an argument mistake is not worth retrying as is")
		assert.Equal(t, "get issue: "+text, env.Message)
		require.Len(t, env.Fields, 1, string(r.Raw))
		assert.Equal(t, envelope.FieldError{Field: want[0], Rule: want[1], Message: text}, env.Fields[0], string(r.Raw))
		assert.Equal(t, []string{"Send an id.", envelope.DefaultNextSteps(envelope.ValidationError)[0]}, env.NextSteps)
	}
	// Near misses are not argument errors.
	for _, text := range []string{
		`argument "id" is not an int!`, `Required argument "id" not found`, `the argument "id" is not an int`,
		`argument "id" cannot be converted to Int`,
	} {
		expect(t, serve(t, failing(errors.New(text)), envelope.WithLogger(slog.New(slog.DiscardHandler))).Call(nil), envelope.InternalError)
	}
	// A renderer built with more options keeps recognising them.
	expect(t, serve(t, failing(errors.New(`required argument "q" not found`)), envelope.WithUnclassified(envelope.ExecutionFailed)).Call(nil), envelope.ValidationError)
}
