package redact_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/redact"
)

func TestRulesAreExtensible(t *testing.T) {
	t.Parallel()
	r := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "EMP-"))
	assert.Equal(t, "employee EMP-[REDACTED] not found", r.String("employee EMP-123456 not found"))
	assert.Equal(t, "emp-123456 is lower case", r.String("emp-123456 is lower case"), "triggers are compared lower-cased; the pattern decides")
	assert.Len(t, r.Rules(), len(redact.DefaultRules())+1)
	assert.Equal(t, []string{"emp-"}, r.Rules()[len(r.Rules())-1].Triggers, "triggers are stored lower-cased")
	assert.Panics(t, func() { redact.NewRule("bad", `(`, "") }, "a broken rule fails at start-up")

	// A rule without triggers runs on every text; a "^" trigger must start it.
	anywhere := redact.New(redact.NewRule("digits", `\d+`, "#"))
	assert.Equal(t, "order # of #", anywhere.String("order 12 of 30"))
	zed := redact.New(redact.NewRule("zed", `(?i)zed-\d+`, "[zed]", "zed-"))
	assert.Equal(t, "[zed] and [zed]", zed.String("ZED-12 and ZED-3"), "upper-case text meets a lower-case trigger")
	start := redact.New(redact.NewRule("ticket", `^T-\d+`, "T-#", "^t-"))
	assert.Equal(t, "T-# open", start.String("T-42 open"))
	assert.Equal(t, "see T-42", start.String("see T-42"))
}

func TestRedactorsAreValues(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "x /a/b", redact.New().String("x /a/b"), "New() redacts nothing")
	var none *redact.Redactor
	assert.Equal(t, "password=x", none.String("password=x"), "a nil Redactor redacts nothing")
	assert.Equal(t, "y /a/b", none.With(redact.NewRule("x", "x", "y")).String("x /a/b"), "With on nil starts from no rules")
	assert.Empty(t, none.Without("paths").Rules())
	assert.Equal(t, "", redact.String(""))

	rules := redact.DefaultRules()
	rules[0] = redact.Rule{Name: "clobbered"}
	assert.NotEqual(t, "clobbered", redact.DefaultRules()[0].Name, "DefaultRules returns a copy")
	got := redact.Default().Rules()
	got[0] = redact.Rule{Name: "clobbered"}
	assert.NotEqual(t, "clobbered", redact.Default().Rules()[0].Name, "Rules returns a copy")
	assert.Same(t, redact.Default(), redact.Default())
}

func TestWithoutDropsRulesByNameOrCategory(t *testing.T) {
	t.Parallel()
	in := `open /srv/shop/x.db and C:\shop\y.db with password=hunter2`
	assert.Equal(t, `open /srv/shop/x.db and C:\shop\y.db with password=[REDACTED]`, redact.Default().Without("paths").String(in))
	assert.Equal(t, `open /srv/shop/x.db and [path] with password=[REDACTED]`, redact.Default().Without("paths/unix").String(in))
	assert.Equal(t, `open [path] and [path] with password=hunter2`, redact.Default().Without("secrets/pairs").String(in))
	assert.Len(t, redact.Default().Without("nope", "path").Rules(), len(redact.DefaultRules()), "a prefix that is not a category drops nothing")
	for _, rule := range redact.Default().Without("stack", "secrets").Rules() {
		assert.True(t, strings.HasPrefix(rule.Name, "paths/"), rule.Name)
	}
}

// Redacting clean text is a few substring searches and no allocation,
// even when the text is mixed case or longer than the stack buffer.
func TestCleanTextDoesNotAllocate(t *testing.T) {
	for _, s := range []string{
		"relation users does not exist",
		"Order ORD-1 Was Not Found In The Store",
		`{"error_type":"not_found","message":"No order ORD-1 exists.","next_steps":["List orders first."]}`,
	} {
		assert.Equal(t, s, redact.String(s))
		if !raceEnabled {
			assert.Zero(t, testing.AllocsPerRun(100, func() { _ = redact.String(s) }), s)
		}
	}
	long := strings.Repeat("no order matches the filter; ", 100) // beyond the bloom filter and the stack buffer
	require.Equal(t, long, redact.String(long))
	for _, n := range []int{300, 1100} { // past the stack buffer; past the bloom filter's bound
		assert.Equal(t, strings.Repeat("x ", n)+"password=[REDACTED]", redact.String(strings.Repeat("x ", n)+"password=hunter2"),
			"a trigger in a text of %d bytes is found", 2*n)
	}
}

func TestErrorRedactsTextAndKeepsTheChain(t *testing.T) {
	r := redact.Default()
	base := errors.New("dial postgres://app:hunter2@db/shop: connection refused")
	wrapped := fmt.Errorf("loading: %w", base)
	got := r.Error(wrapped)
	if strings.Contains(got.Error(), "hunter2") || !strings.Contains(got.Error(), "loading: dial postgres://") {
		t.Errorf("Error text = %q", got.Error())
	}
	if !errors.Is(got, base) {
		t.Error("the redacted error no longer wraps the original")
	}
	clean := errors.New("connection refused")
	if r.Error(clean) != clean {
		t.Error("an error with nothing to redact is not returned as it is")
	}
	if r.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	if got := r.Error(panickingError{}); got == nil || strings.Contains(got.Error(), "hunter2") {
		t.Errorf("a panicking Error method: %v", got)
	}
}

type panickingError struct{}

func (panickingError) Error() string { panic("token=hunter2") }
