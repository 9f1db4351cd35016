package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
)

// The cost of redacting the texts an error result carries: clean text and
// a clean envelope (the common case), and text with a secret.
func BenchmarkString(b *testing.B) {
	r := redact.Default()
	for name, text := range map[string]string{
		"clean":       `pq: relation "users" does not exist`,
		"clean-json":  `{"error_type":"not_found","message":"No order ORD-1 exists.","next_steps":["List orders first."],"retryable":false}`,
		"secret":      `dial postgres://app:hunter2@db:5432/shop: connection refused`,
		"java-trace":  "java.lang.IllegalStateException: closed\n\tat com.shop.A.b(A.java:42)\n\tat com.shop.C.d(C.java:7)",
		"long-clean":  `upstream returned 502 Bad Gateway for order ORD-2024-000123 after 3 retries; the warehouse service is unavailable, try again later`,
		"token-shape": `upstream rejected key Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7 for tenant 42`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = r.Text(text)
			}
		})
	}
}

// The cost of a call's redactor on an error's text (the arguments read
// once per call, as each call builds its own from ForCall): arguments of
// a typical tool, with a secret-named member and without one.
func BenchmarkForCall(b *testing.B) {
	r := redact.Default()
	for name, args := range map[string]json.RawMessage{
		"no-secret": json.RawMessage(`{"order_id":"ORD-2024-000123","path":"/srv/shop/orders","limit":10,"note":"rush"}`),
		"a-secret":  json.RawMessage(`{"order_id":"ORD-2024-000123","path":"/srv/shop/orders","limit":10,"api_key":"k-12345678"}`),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = r.ForCall(args).String(`upstream returned 502 Bad Gateway for order ORD-2024-000123`)
			}
		})
	}
}
