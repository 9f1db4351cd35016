package redact_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

// Options are evaluated in order, as a middleware or Handler built with
// them would; a nil option or a nil redactor falls back to the defaults.
func TestConfigure(t *testing.T) {
	t.Parallel()
	c := redact.Configure()
	assert.Same(t, redact.Default(), c.Redactor)
	assert.False(t, c.RedactSuccesses)

	c = redact.Configure(nil, redact.WithRedactSuccesses())
	assert.Same(t, redact.Default(), c.Redactor)
	assert.True(t, c.RedactSuccesses)

	assert.Same(t, redact.Default(), redact.Configure(redact.WithRedactor(nil)).Redactor)
	custom := redact.New(redact.NewRule("x", `x`, "y", "x"))
	assert.Same(t, custom, redact.Configure(redact.WithRedactor(custom)).Redactor)

	emp := redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-")
	c = redact.Configure(redact.WithRedactor(custom), redact.WithRules(emp))
	assert.Equal(t, "y EMP-[REDACTED] /a/b", c.Redactor.String("x EMP-123456 /a/b"), "WithRules adds after the redactor given before")
	c = redact.Configure(redact.WithRules(emp), redact.WithoutRules("paths"))
	assert.Equal(t, "EMP-[REDACTED] /a/b password=[REDACTED]", c.Redactor.String("EMP-123456 /a/b password=x"))
	assert.Len(t, c.Redactor.Rules(), len(redact.Default().Without("paths").Rules())+1)
}
