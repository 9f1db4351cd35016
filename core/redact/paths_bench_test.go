package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
)

// The cost of the path rules on the texts they change or keep: a server
// path, a schema pointer, a path in a call that sent it, a file URL.
func BenchmarkPaths(b *testing.B) {
	args := json.RawMessage(`{"path":"/tmp/x/nope.go","items":[{"name":""}]}`)
	for name, text := range map[string]string{
		"server-path": `open /var/lib/app/data/orders.db: permission denied`,
		"pointer":     `validating /properties/entities: type: 12345 has type "integer"`,
		"sent-path":   `stat /tmp/x/nope.go: no such file or directory`,
		"file-url":    `no package metadata for file file:///tmp/x/nope.go`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = redact.Default().ForCall(args).String(text)
			}
		})
	}
}
