package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/leak/leakcorpus"
)

// A JSON Pointer into the schema names the rule an argument broke; before,
// go-sdk's "validating /properties/entities: …" went out as
// "validating [path]: …" and the agent could not tell which argument.
func TestSchemaPointersAreNoPaths(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`validating /properties/entities: type: 12345 has type "integer", want "array"`,
		`validating /properties/entities/items/properties/name: minLength: "" has length 0`,
		`validating /$defs/Entity/properties/observations/items: type: 1 has type "integer"`,
		`validating /properties/tags/items/0/enum: "x" not in enum`,
		`at /allOf/1/required: missing properties: ["path"]`,
	} {
		assert.Equal(t, s, redact.String(s))
	}
	for in, want := range map[string]string{
		`open /srv/app/properties/x.json: denied`:  `open [path]: denied`,
		`open /properties/entities/a.json: denied`: `open [path]: denied`,
		`open /items/0/name: denied`:               `open [path]: denied`, // no call: not known to be a pointer
		`read /etc/passwd: denied`:                 `read [path]: denied`,
	} {
		assert.Equal(t, want, redact.String(in))
	}
}

// What the agent sent stays readable, in the forms a server writes it
// back; nothing else does, however the agent spells its arguments.
func TestForCallKeepsSentFormsOnly(t *testing.T) {
	t.Parallel()
	args := json.RawMessage(`{"path":"/tmp/x/nope.go","items":[{"name":""}],"etc":{"n":1},"password":"/home/alice/pw","q":"sk-proj-AbCdEf0123456789GhIjKlMn"}`)
	r := redact.Default().ForCall(args)
	for in, want := range map[string]string{
		// Kept: the path as sent, its file URL, a pointer to a value sent.
		`no package metadata for file file:///tmp/x/nope.go`: `no package metadata for file file:///tmp/x/nope.go`,
		`open file:///tmp/x/nope.go: denied`:                 `open file:///tmp/x/nope.go: denied`,
		`stat /tmp/x/nope.go: no such file`:                  `stat /tmp/x/nope.go: no such file`,
		`at '/items/0/name': length must be >= 1, but got 0`: `at '/items/0/name': length must be >= 1, but got 0`,
		// Redacted: another file, a pointer to nothing sent, a path that
		// only starts like a member, a secret-named argument's value, and
		// a secret, which is never kept even when the agent sent it.
		`open file:///tmp/x/other.go: denied`:                            `open [path]: denied`,
		`at '/items/1/name': missing`:                                    `at '[path]': missing`,
		`read /etc/n/shadow: denied`:                                     `read [path]: denied`,
		`open /home/alice/pw: denied`:                                    `open [REDACTED]: denied`,
		`bad key sk-proj-AbCdEf0123456789GhIjKlMn`:                       `bad key [REDACTED]`,
		`failed to write file /tmp/x/nope.go/db_password=hunter2/m.json`: `failed to write file [path]`,
	} {
		assert.Equal(t, want, r.String(in), "for %q", in)
	}
	win := redact.Default().ForCall(json.RawMessage(`{"file":"C:\\src\\app\\main.go"}`))
	assert.Equal(t, "no package for file:///C:/src/app/main.go", win.String("no package for file:///C:/src/app/main.go"),
		"a drive path sent with backslashes, written back as a file URL")
	assert.Equal(t, "no package for [path]", win.String("no package for file:///C:/src/other.go"))
	etc := redact.Default().ForCall(json.RawMessage(`{"etc":{"passwd":1}}`))
	assert.Equal(t, "read /etc/passwd: denied", etc.String("read /etc/passwd: denied"),
		"a pointer the agent spelled in full is what it sent")
	assert.Equal(t, "read [path]: denied", etc.String("read /etc/shadow: denied"))
}

// An agent cannot unredact a secret by sending it: whatever it puts in its
// arguments (the whole text, each secret, the secret as a member name or
// a path of members), every secret of the corpus outside the path shapes
// (which are kept when sent, by design) is still removed.
func TestSendingASecretNeverUnredactsIt(t *testing.T) {
	t.Parallel()
	for _, sh := range leakcorpus.Shapes() {
		if sh.Category == "paths" {
			continue
		}
		args := map[string]any{"text": sh.Text, "secrets": sh.Secrets, "uri": "file://" + sh.Text}
		nested := args
		for _, s := range sh.Secrets {
			args[s] = map[string]any{s: 1}
			next := map[string]any{}
			nested[s] = next
			nested = next
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		out := redact.Default().ForCall(json.RawMessage(raw)).String(sh.Text)
		for _, s := range sh.Secrets {
			assert.NotContains(t, out, s, "%s shape %q, sent in every form", sh.Category, sh.Text)
		}
	}
}
