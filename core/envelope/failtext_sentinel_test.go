package envelope_test

import (
	"fmt"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// A server in front of which the proxy stands may use the sentinels
// without the layers (or another language's copy of their words): its
// JSON-RPC error then carries the sentinel's text, bare or after the
// context a handler wrapped it in. The text classifier gives each the
// sentinel's code, as a front holding the error itself does (issue 46:
// the proxy answered execution_failed where the fronts said not_found).
func TestClassifyTextReadsTheSentinelsOwnWords(t *testing.T) {
	for _, s := range []*envelope.Error{envelope.ErrAuthenticationFailed, envelope.ErrAccessDenied,
		envelope.ErrNotFound, envelope.ErrConfiguration, envelope.ErrValidation} {
		for _, text := range []string{s.Error(), fmt.Errorf("product P-2: %w", s).Error(),
			fmt.Errorf("loading order 7: %w", fmt.Errorf("product P-2: %w", s)).Error()} {
			c, ok := envelope.ClassifyText(text)
			if !ok || c.Code != s.Code() {
				t.Errorf("ClassifyText(%q) = %q, %v; want %q", text, c.Code, ok, s.Code())
			}
		}
	}
}
