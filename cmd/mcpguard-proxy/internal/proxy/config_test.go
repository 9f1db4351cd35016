package proxy_test

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

const hintsYAML = `
mappings:
  - match: permission denied
    code: access_denied
hints:
  - tool: bad_args
    code: validation_error
    steps:
      - call: echo
        why: to see what the server received
  - tool: fail_rpc
    match: postgres
    steps:
      - text: The database is down; try again in a minute.
    replace_defaults: true
  - tool: hang
    code: execution_failed
    steps:
      - call: no_such_tool
        why: never
`

func TestHintsFileAddsStepsAndMappings(t *testing.T) {
	c, err := proxy.ParseConfig([]byte(hintsYAML))
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, proxy.WithConfig(c))
	s.request("tools/list", `{}`)
	if env := envelopeOf(t, s.call("fail_text", `{}`)); env["error_type"] != "access_denied" {
		t.Errorf("the mapping did not apply: %v", env)
	}
	env := envelopeOf(t, s.call("bad_args", `{}`))
	steps := env["next_steps"].([]any)
	if len(steps) < 2 || steps[0] != "Call echo to see what the server received." {
		t.Errorf("bad_args steps: %v", steps)
	}
	env = envelopeOf(t, s.call("fail_rpc", `{}`))
	if steps := env["next_steps"].([]any); len(steps) != 1 || !strings.Contains(steps[0].(string), "database is down") {
		t.Errorf("fail_rpc steps (defaults replaced): %v", steps)
	}
	if !strings.Contains(s.logs.String(), `hints of tool \"hang\" name unknown tool \"no_such_tool\"`) {
		t.Errorf("the dangling reference is not reported:\n%s", s.logs)
	}
}

func TestBadHintsFilesAreRefused(t *testing.T) {
	for _, bad := range []string{
		"hints:\n  - tool: x\n    code: nope\n    steps: [{text: a}]\n",
		"hints:\n  - tool: x\n    steps: [{text: a}]\n",
		"hints:\n  - tool: x\n    code: not_found\n",
		"hints:\n  - tool: x\n    code: not_found\n    steps: [{text: a, call: b}]\n",
		"mappings:\n  - match: x\n    code: bogus\n",
		"hint:\n  - tool: x\n",
		`{"hints": [{"tool": "x", "code": "not_found", "stepz": []}]}`,
	} {
		if _, err := proxy.ParseConfig([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	if _, err := proxy.ParseConfig([]byte(`{"hints":[{"tool":"x","code":"not_found","steps":[{"text":"a"}]}]}`)); err != nil {
		t.Errorf("a JSON file: %v", err)
	}
}
