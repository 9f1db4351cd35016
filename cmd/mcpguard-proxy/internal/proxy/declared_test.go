package proxy_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// A call whose arguments the tool's own declared inputSchema rejects is
// answered with validation_error and fields before the upstream sees it:
// the child's echo would otherwise answer success, having read "" for a
// number it cannot use. WithoutDeclaredSchemas lets it through as before.
func TestDeclaredSchemaIsEnforcedBeforeTheServer(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	env := envelopeOf(t, s.call("echo", `{"text":42}`))
	if env["error_type"] != "validation_error" {
		t.Fatalf("want validation_error, got %v", env)
	}
	fields, _ := env["fields"].([]any)
	if len(fields) != 1 || fields[0].(map[string]any)["field"] != "text" || fields[0].(map[string]any)["rule"] != "type" {
		t.Fatalf("want one type error on text, got %v", env["fields"])
	}
	if got := textOf(t, s.call("echo", `{"text":"ok"}`)); got != "ok" {
		t.Fatalf("a valid call: %q", got)
	}

	off := start(t, proxy.WithoutDeclaredSchemas())
	off.request("tools/list", `{}`)
	if got := textOf(t, off.call("echo", `{"text":42}`)); got != "" {
		t.Fatalf("without the check the child answers, got %q", got)
	}
}

// The proxy lists the tools itself before the first call, so a declared
// schema is checked from the first call, before any client's tools/list
// (issue 35); a tool whose schema declares nothing to check passes every
// call unchanged.
func TestDeclaredSchemasFromTheFirstCallAndEmptyOnesPassThrough(t *testing.T) {
	s := start(t)
	if env := envelopeOf(t, s.call("echo", `{"text":42}`)); env["error_type"] != "validation_error" {
		t.Fatalf("the first call, before any tools/list: %v", env)
	}
	if env := envelopeOf(t, s.call("fail_text", `{"anything":[1,2,3]}`)); env["error_type"] == "validation_error" {
		t.Fatalf("a schema with nothing to check refused a call: %v", env)
	}
}

// The check refuses nothing a lenient server accepts: an optional member
// sent as 0 (or null, "", false) is read as not set, as servers on
// mcpguard's validate read it, though the schema's minimum is 1; a value
// that is set and out of bounds is refused with its field.
func TestUnsetOptionalMembersAreNotRefused(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	for _, args := range []string{`{"text":"a","times":0}`, `{"text":"a","times":null}`, `{"text":"a","times":0.0}`} {
		if got := textOf(t, s.call("echo", args)); got != "a" {
			t.Fatalf("%s: %q", args, got)
		}
	}
	env := envelopeOf(t, s.call("echo", `{"text":"a","times":-3}`))
	fields, _ := env["fields"].([]any)
	if env["error_type"] != "validation_error" || len(fields) != 1 || fields[0].(map[string]any)["field"] != "times" {
		t.Fatalf("want a field error on times, got %v", env)
	}
	env = envelopeOf(t, s.call("echo", `{"text":7,"times":0}`))
	fields, _ = env["fields"].([]any)
	if len(fields) != 1 || fields[0].(map[string]any)["field"] != "text" {
		t.Fatalf("an unset optional member hides no other error: %v", env)
	}
}

// What the server receives is what the proxy checked: an optional member
// the check read as not set, because the schema refuses its value (null,
// 0 under a minimum of 1), is left out upstream, so a server whose schema
// forbids it never sees it; the members the schema accepts as sent
// (false) go as sent; a string the check read as the integer it spells
// goes as that integer; a valid call goes unchanged.
func TestUnsetOptionalMembersAreLeftOutUpstream(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	for args, want := range map[string]string{
		`{"text":"a","times":null}`:                 `{"text":"a"}`,
		`{"text":"a","times":null,"verbose":false}`: `{"text":"a","verbose":false}`,
		`{"text":"a","times":0,"verbose":null}`:     `{"text":"a"}`,
		`{"text":"","times":2}`:                     `{"text":"","times":2}`,
		`{"times":null,"text":"a","verbose":true}`:  `{"text":"a","verbose":true}`,
	} {
		if got := textOf(t, s.call("received", args)); got != want {
			t.Errorf("%s: the server received %s, want %s", args, got, want)
		}
	}
}
