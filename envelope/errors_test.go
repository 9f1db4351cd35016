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

func TestURLElicitationByPointerStaysAProtocolError(t *testing.T) {
	t.Parallel()
	elicit := &mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	r := serve(t, failing(errors.Join(errors.New("need consent"), elicit))).Call(nil)
	require.NotNil(t, r.ProtocolError, "%s", r.Raw)
	assert.Equal(t, mcp.URL_ELICITATION_REQUIRED, r.ProtocolError.Code)
}

func TestInternalWithOptions(t *testing.T) {
	t.Parallel()
	res := envelope.InternalResult(context.Background(), "shop_tool", "inc_0123456789abcdef", envelope.WithInternalMessage("Our side broke."))
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(env.Message, "Our side broke."), env.Message)
}
