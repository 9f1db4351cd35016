package proxy_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// A call whose arguments the tool's own declared inputSchema rejects is
// answered with validation_error and fields before the upstream sees it:
// the child's echo would otherwise answer success, having read "" for a
// number it cannot use. Without WithDeclaredSchemas it goes through as
// before.
func TestDeclaredSchemaIsEnforcedBeforeTheServer(t *testing.T) {
	s := start(t, false, proxy.WithDeclaredSchemas())
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

	off := start(t, false)
	off.request("tools/list", `{}`)
	if got := textOf(t, off.call("echo", `{"text":42}`)); got != "" {
		t.Fatalf("without the check the child answers, got %q", got)
	}
}

// Before the proxy has read a tools/list it knows no schema, and a tool
// whose schema declares nothing to check passes every call unchanged.
func TestUnlistedOrEmptySchemasPassThrough(t *testing.T) {
	s := start(t, false, proxy.WithDeclaredSchemas())
	if got := textOf(t, s.call("echo", `{"text":42}`)); got != "" {
		t.Fatalf("unlisted: %q", got)
	}
	s.request("tools/list", `{}`)
	if env := envelopeOf(t, s.call("fail_text", `{"anything":[1,2,3]}`)); env["error_type"] == "validation_error" {
		t.Fatalf("a schema with nothing to check refused a call: %v", env)
	}
}
