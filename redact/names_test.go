package redact_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	core "github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/redact"
)

// The shell's names are the core's values, so a Redactor or an option
// built on either front serves both.
func TestNamesAreTheCoresValues(t *testing.T) {
	t.Parallel()
	assert.Same(t, core.Default(), redact.Default())
	shell, coreRules := redact.DefaultRules(), core.DefaultRules()
	assert.Len(t, shell, len(coreRules))
	for i := range shell {
		assert.Same(t, coreRules[i].Pattern, shell[i].Pattern, coreRules[i].Name)
	}
	assert.Equal(t, core.Placeholder, redact.Placeholder)
	emp := redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "EMP-")
	assert.Equal(t, []string{"emp-"}, emp.Triggers)
	assert.Equal(t, "EMP-[REDACTED]", redact.New(emp).String("EMP-123456"))
	assert.Equal(t, core.String("open /srv/x/y"), redact.String("open /srv/x/y"))
	assert.Equal(t, core.IsSecretKey("dbPassword"), redact.IsSecretKey("dbPassword"))
	assert.True(t, redact.IsSecretKey("dbPassword"))

	c := core.Configure(redact.WithRedactor(redact.New(emp)), redact.WithRules(redact.NewRule("x", "x", "y", "x")), redact.WithRedactSuccesses())
	assert.Equal(t, "EMP-[REDACTED] y", c.Redactor.String("EMP-123456 x"))
	assert.True(t, c.RedactSuccesses)

	var buf bytes.Buffer
	slog.New(redact.Handler(slog.NewJSONHandler(&buf, nil), redact.WithRules(emp))).Info("EMP-123456", "dsn", "postgres://u:hunter2@h/db")
	assert.NotContains(t, buf.String(), "123456")
	assert.NotContains(t, buf.String(), "hunter2")
}
