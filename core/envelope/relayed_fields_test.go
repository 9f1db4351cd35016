package envelope_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// relayed is the text of a validation_error envelope an upstream service
// wrote, listing fields.
func relayed(t *testing.T, fields []envelope.FieldError) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"success": false, "error_type": "validation_error", "tool": "shop_tool",
		"message": "bad arguments", "fields": fields, "next_steps": []string{}, "retryable": false,
	})
	require.NoError(t, err)
	return string(b)
}

func invalidFields(n int) []envelope.FieldError {
	fs := make([]envelope.FieldError, n)
	for i := range fs {
		fs[i] = envelope.FieldError{Field: fmt.Sprintf("f%d", i), Rule: "required", Message: "is required"}
	}
	return fs
}

// A relayed list of fields is cut to the shape this server's own lists
// have: at most MaxFieldErrors, then one "more" entry counting the rest.
// A list that already has that shape (MaxFieldErrors and its own "more")
// keeps its count, which says how many the upstream left out; a list one
// longer whose last entry is not "more" is cut like any other.
func TestRelayedFieldsKeepTheCoreShape(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	lastOf := func(fs []envelope.FieldError) (envelope.FieldError, []envelope.FieldError) {
		env, raw := text(t, r, relayed(t, fs))
		require.Equal(t, envelope.ValidationError, env.ErrorType, raw)
		require.Len(t, env.Fields, envelope.MaxFieldErrors+1, raw)
		return env.Fields[len(env.Fields)-1], env.Fields
	}

	last, got := lastOf(invalidFields(envelope.MaxFieldErrors + 10))
	assert.Equal(t, envelope.MoreFields(10), last, "30 fields: 20 and a count of the 10 left out")
	assert.Equal(t, "f19", got[envelope.MaxFieldErrors-1].Field)

	cut := append(invalidFields(envelope.MaxFieldErrors), envelope.MoreFields(37))
	last, _ = lastOf(cut)
	assert.Equal(t, envelope.MoreFields(37), last, "an upstream's own cut list keeps its count")

	last, got = lastOf(invalidFields(envelope.MaxFieldErrors + 1))
	assert.Equal(t, envelope.MoreFields(1), last, "21 ordinary fields: the 21st is counted, not listed")
	assert.Equal(t, "f19", got[envelope.MaxFieldErrors-1].Field)

	env, raw := text(t, r, relayed(t, invalidFields(envelope.MaxFieldErrors)))
	require.Len(t, env.Fields, envelope.MaxFieldErrors, raw)
	assert.NotEqual(t, "more", env.Fields[envelope.MaxFieldErrors-1].Rule, "20 fields fit: no count")
}

// Unencodable logs with the logger it is given, or the renderer's when
// that is nil, and answers internal_error with the logged incident.
func TestUnencodableLogsWithTheRenderersLoggerByDefault(t *testing.T) {
	t.Parallel()
	var own, given logs
	r := envelope.NewRenderer(envelope.WithLogger(own.logger()))
	cause := errors.New("json: unsupported value: password=hunter2")

	env, raw := wire(t, r.Unencodable(context.Background(), "shop_tool", cause, nil))
	require.Equal(t, envelope.InternalError, env.ErrorType, raw)
	assert.Contains(t, own.incident(t, env.IncidentID)["error"], "hunter2", "the cause goes to the log")
	noLeak(t, raw, "hunter2")

	env, _ = wire(t, r.Unencodable(context.Background(), "shop_tool", cause, given.logger()))
	given.incident(t, env.IncidentID)
	for _, rec := range own.records(t) {
		assert.NotEqual(t, env.IncidentID, rec["incident_id"], "a given logger is used instead of the renderer's")
	}
	assert.False(t, strings.Contains(raw, "unsupported value"))
}
