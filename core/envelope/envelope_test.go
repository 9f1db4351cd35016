package envelope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

func TestMarshal(t *testing.T) {
	t.Parallel()
	env := &envelope.Envelope{ErrorType: envelope.NotFound, Tool: "t", Message: "m"}
	assert.Equal(t, `{"success":false,"error_type":"not_found","tool":"t","message":"m","next_steps":[],"retryable":false}`, string(env.Marshal()))

	full := &envelope.Envelope{ErrorType: envelope.ValidationError, Tool: "t", Message: "m", NextSteps: []string{"s"}, Retryable: true,
		IncidentID: "inc_1", RetryAfterMS: 5, Fields: []envelope.FieldError{{Field: "f", Rule: "oneof", Param: "p", Allowed: []string{"a"}, Suggestion: "a", Message: "fm"}}}
	assert.Equal(t, `{"success":false,"error_type":"validation_error","tool":"t","message":"m","next_steps":["s"],"retryable":true,`+
		`"incident_id":"inc_1","fields":[{"field":"f","rule":"oneof","param":"p","allowed":["a"],"suggestion":"a","message":"fm"}],"retry_after_ms":5}`,
		string(full.Marshal()))

	// An invalid code never reaches the wire: the envelope becomes internal.
	bad := &envelope.Envelope{ErrorType: "teapot", Tool: "t", Message: "m"}
	assert.Equal(t, `{"success":false,"error_type":"internal_error","tool":"t","message":"m","next_steps":[],"retryable":false}`, string(bad.Marshal()))
}

func TestParse(t *testing.T) {
	t.Parallel()
	text := `  {"success":false,"error_type":"not_found","tool":"t","message":"m","next_steps":["s"],"retryable":true,"incident_id":"i","retry_after_ms":3}  `
	env, ok := envelope.Parse(text)
	require.True(t, ok)
	assert.Equal(t, &envelope.Envelope{ErrorType: envelope.NotFound, Tool: "t", Message: "m", NextSteps: []string{"s"}, Retryable: true,
		IncidentID: "i", RetryAfterMS: 3}, env)

	env, ok = envelope.Parse(`{"success":false,"error_type":"access_denied"}`)
	require.True(t, ok)
	assert.Equal(t, []string{}, env.NextSteps, "next_steps is never nil")

	for _, bad := range []string{
		"", "{", "{}", "plain", `["error_type"]`, `{"error_type":"not_found"`,
		`{"success":true,"error_type":"not_found"}`,
		`{"success":false,"error_type":"teapot"}`,
		`{"success":false,"error_type":"NOT_FOUND"}`,
		`{"success":false,"error_type":"not_found","message":7}`,
		`{"success":false,"error":"not_found"}`,
		`x{"success":false,"error_type":"not_found"}`,
	} {
		env, ok := envelope.Parse(bad)
		assert.False(t, ok, bad)
		assert.Nil(t, env, bad)
	}
}

func TestMarshalParseRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range envelope.Codes() {
		in := &envelope.Envelope{ErrorType: c, Tool: "t", Message: "m", NextSteps: envelope.DefaultNextSteps(c)}
		out, ok := envelope.Parse(string(in.Marshal()))
		require.True(t, ok, c)
		assert.Equal(t, in, out)
	}
}
