package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

func TestForCallKeepsWhatTheAgentSent(t *testing.T) {
	t.Parallel()
	for name, args := range map[string]any{
		"raw JSON": json.RawMessage(`{"path":"/home/alice/notes/todo.md","api_key":"/home/alice/k","n":1}`),
		"bytes":    []byte(`{"path":"/home/alice/notes/todo.md","api_key":"/home/alice/k"}`),
		"decoded":  map[string]any{"path": "/home/alice/notes/todo.md", "api_key": "/home/alice/k", "list": []any{"x"}},
		"a struct": struct {
			Path   string `json:"path"`
			APIKey string `json:"api_key"`
		}{"/home/alice/notes/todo.md", "/home/alice/k"},
	} {
		r := redact.Default().ForCall(args)
		assert.Equal(t, "open /home/alice/notes/todo.md: not found", r.String("open /home/alice/notes/todo.md: not found"), name)
		assert.Equal(t, "open [path]: not found", r.String("open /srv/shop/todo.md: not found"), "%s: a path it never sent does not survive", name)
		assert.Equal(t, "open [REDACTED]", r.String("open /home/alice/k"), "%s: a secret-named argument is never kept: it is redacted as a secret", name)
		assert.Equal(t, "[path] and /home/alice/notes/todo.md", r.String("/srv/a/b and /home/alice/notes/todo.md"), name)
		assert.Equal(t, `{"file":"/home/alice/notes/todo.md"}`, r.Text(`{"file":"/home/alice/notes/todo.md"}`), "%s: JSON too", name)
	}
	r := redact.Default().ForCall(json.RawMessage(`{"path":"/api/v1/users/42?token=ghp_16C7e42F292c6912E7710c838347Ae178B4a"}`))
	assert.Equal(t, "token [REDACTED] rejected", r.String("token ghp_16C7e42F292c6912E7710c838347Ae178B4a rejected"), "secrets stay redacted when sent")
	assert.Equal(t, "open [path]", r.With().String("open /srv/x/y"), "With keeps the call")
	assert.Equal(t, "open /api/v1/users/42", r.Without("secrets").String("open /api/v1/users/42"), "Without keeps the call")
}

// A full stop, or a run of them, after a path ends the sentence, not the
// path: the agent's own path is kept and the stop with it; a path it never
// sent is redacted and the stop stays.
func TestForCallKeepsASentPathBeforeAFullStop(t *testing.T) {
	t.Parallel()
	r := redact.Default().ForCall(map[string]any{"path": "/nonexistent/repo/dir"})
	for in, want := range map[string]string{
		"cannot open /nonexistent/repo/dir.":          "cannot open /nonexistent/repo/dir.",
		"cannot open /nonexistent/repo/dir...":        "cannot open /nonexistent/repo/dir...",
		"cannot open /nonexistent/repo/dir. Retry.":   "cannot open /nonexistent/repo/dir. Retry.",
		"cannot open /etc/passwd.":                    "cannot open [path].",
		"cannot open /etc/app/config.yaml.":           "cannot open [path].",
		"cannot open /nonexistent/repo/dir.bak":       "cannot open [path]",
		"cannot open /nonexistent/repo/dir/.git/HEAD": "cannot open [path]",
	} {
		assert.Equal(t, want, r.String(in), in)
	}
	assert.Equal(t, "open [path].", redact.Default().String("open /home/alice/notes.txt."), "outside a call too")
	win := redact.Default().ForCall(map[string]any{"path": `C:\src\app`, "share": `\\fs\share\in`})
	assert.Equal(t, `cannot open C:\src\app.`, win.String(`cannot open C:\src\app.`))
	assert.Equal(t, `cannot open [path].`, win.String(`cannot open C:\Users\alice\notes.txt.`))
	assert.Equal(t, `cannot open \\fs\share\in.`, win.String(`cannot open \\fs\share\in.`))
	assert.Equal(t, `cannot open [path].`, win.String(`cannot open \\fs\share\secret.`))
}

func TestForCallCostsNothingWithoutArguments(t *testing.T) {
	t.Parallel()
	d := redact.Default()
	assert.Same(t, d, d.ForCall(nil))
	assert.Same(t, d, d.ForCall(json.RawMessage(nil)))
	assert.Same(t, d, d.ForCall(json.RawMessage{}))
	noKeep := d.Without("paths", redact.SentSecretsRule)
	assert.Same(t, noKeep, noKeep.ForCall(map[string]any{"path": "/a/b"}), "a redactor that reads nothing sent is itself")
	var none *redact.Redactor
	assert.Nil(t, none.ForCall(map[string]any{"a": "b"}))
	assert.Equal(t, "open [path]", d.ForCall(map[string]any{"n": 1.0}).String("open /a/b"), "arguments without strings keep nothing")
}

// A custom rule that keeps what was sent compares its "kept" submatch, or
// the whole match without one.
func TestForCallCustomKeepSentRules(t *testing.T) {
	t.Parallel()
	ticket := redact.NewRule("ticket", `ticket (?P<kept>T-\d+)`, "ticket [hidden]", "ticket ")
	ticket.KeepSent = true
	whole := redact.NewRule("order", `ORD-\d+`, "[order]", "ord-")
	whole.KeepSent = true
	r := redact.New(ticket, whole).ForCall(map[string]any{"q": "T-1 ORD-1"})
	assert.Equal(t, "ticket T-1, ticket [hidden], ORD-1 and [order]", r.String("ticket T-1, ticket T-2, ORD-1 and ORD-2"))
	assert.Equal(t, "nothing here", r.String("nothing here"))

	// A "kept" submatch that did not take part: the whole match is compared.
	opt := redact.NewRule("optional", `ref(-x)?(?P<kept>-\d+)?`, "[ref]", "ref")
	opt.KeepSent = true
	r = redact.New(opt).ForCall(map[string]any{"q": "x"})
	assert.Equal(t, "[ref] and [ref]", r.String("ref and ref-x-1"), "neither the bare ref nor the unsent -1 was sent")
	r = redact.New(opt).ForCall(map[string]any{"q": "see ref"})
	assert.Equal(t, "ref, [ref]", r.String("ref, ref-7"), "a bare ref was sent; -7 was not")
}

func TestForCallIsBoundedOnHugeArguments(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"xs":[`)
	for i := range 100000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"/srv/x/` + strings.Repeat("a", 8) + `"`)
	}
	b.WriteString(`],"path":"/late/in/the/args"}`)
	r := redact.Default().ForCall(json.RawMessage(b.String()))
	assert.Equal(t, "open [path]", r.String("open /late/in/the/args"), "what lies past the budget is not remembered")
	assert.Equal(t, "open /srv/x/aaaaaaaa", r.String("open /srv/x/aaaaaaaa"))
}

// TestForCallRedactsTheSecretsItSent: a value the arguments carried under
// a secret-named key comes back redacted from every reader of a result
// (a string, decoded JSON, raw JSON), whatever its shape and nesting,
// while the rest of what was sent stays.
func TestForCallRedactsTheSecretsItSent(t *testing.T) {
	t.Parallel()
	for name, args := range map[string]any{
		"raw JSON": json.RawMessage(`{"user":"bob","password":"s3cr3t-value-1","auth":{"client_secret":"plain words here"},"pin":739151,"keys":{"api_keys":["key-one-1","key-one-1-longer"]},"token":"abc"}`),
		"decoded": map[string]any{"user": "bob", "password": "s3cr3t-value-1", "auth": map[string]any{"client_secret": "plain words here"},
			"pin": 739151.0, "keys": map[string]any{"api_keys": []any{"key-one-1", "key-one-1-longer"}}, "token": "abc"},
	} {
		r := redact.Default().ForCall(args)
		for in, want := range map[string]string{
			"login failed for bob with s3cr3t-value-1":             "login failed for bob with [REDACTED]",
			"secret was plain words here, twice: plain words here": "secret was [REDACTED], twice: [REDACTED]",
			"pin 739151 expired":                                   "pin [REDACTED] expired",
			"rejected key-one-1-longer":                            "rejected [REDACTED]", // the longest first: no "-longer" left
			"rejected key-one-1":                                   "rejected [REDACTED]",
			"token abc is too short to be told from text":          "token abc is too short to be told from text",
		} {
			assert.Equal(t, want, r.String(in), "%s: %q", name, in)
		}
		v, changed := r.Value(map[string]any{"note": "sent s3cr3t-value-1", "s3cr3t-value-1": 1})
		assert.True(t, changed, name)
		assert.Equal(t, map[string]any{"note": "sent [REDACTED]", "[REDACTED]": 1}, v, name)
		raw, changed := r.RawJSON(json.RawMessage(`{"note":"sent s3cr3t-value-1"}`))
		assert.True(t, changed, name)
		assert.JSONEq(t, `{"note":"sent [REDACTED]"}`, string(raw), name)
		raw, changed = r.RawJSON(json.RawMessage(`{"note":"nothing sent"}`))
		assert.False(t, changed, name)
		assert.JSONEq(t, `{"note":"nothing sent"}`, string(raw), name)
	}
	args := json.RawMessage(`{"password":"s3cr3t-value-1"}`)
	assert.Equal(t, "with s3cr3t-value-1", redact.Default().String("with s3cr3t-value-1"), "outside a call nothing is known sent")
	assert.Equal(t, "with s3cr3t-value-1", redact.Default().Without(redact.SentSecretsRule).ForCall(args).String("with s3cr3t-value-1"))
	assert.Equal(t, "with [REDACTED]", redact.Default().ForSuccess().ForCall(args).String("with s3cr3t-value-1"), "a success loses it too")
	assert.Equal(t, "[REDACTED] said REDACTED", redact.Default().ForCall(json.RawMessage(`{"secret":"REDACTED"}`)).String("[REDACTED] said REDACTED"),
		"a secret the placeholder holds is left alone rather than nested")
}
