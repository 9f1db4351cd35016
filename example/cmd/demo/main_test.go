package main

import (
	"context"
	"strings"
	"testing"
)

// The demo runs end to end and shows the contrast it promises: plain
// mcp-go answers failures with JSON-RPC errors (and leaks the password and
// the panic value), mcpguard answers with envelopes that leak nothing.
func TestDemo(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		`plain:    JSON-RPC error -32603, the model never sees it: "order 42: not found"`,
		`"error_type": "not_found"`,
		`"error_type": "internal_error"`,
		`no such table: users`,
		`"suggestion": "electronics"`,
		`Call shop_query with page=2`,
		`Call shop_authenticate`,
		`"error_type": "access_denied"`,
		`"top_product":"p-2004"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		guarded := strings.HasPrefix(strings.TrimSpace(line), "mcpguard:") || strings.HasPrefix(line, "              ")
		if guarded && (strings.Contains(line, dbPassword) || strings.Contains(line, "nil map")) {
			t.Errorf("mcpguard output leaks: %s", line)
		}
	}
	if !strings.Contains(s, "orders:"+dbPassword+"@") {
		t.Error("the plain case should show the password plain mcp-go leaks")
	}
}
