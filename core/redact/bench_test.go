package redact_test

import (
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
