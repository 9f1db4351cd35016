package shop_test

import (
	"errors"
	"fmt"
	"testing"

	coreenv "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk"
)

// One store, two fronts: the sentinels and codes each front exports are
// the core's values, so an error the shop's store or session code returns
// classifies identically under the mcp-go and the go-sdk front (the e2e
// suite then shows it on the wire, client by client).
func TestBothFrontsShareTheSentinels(t *testing.T) {
	pairs := []struct {
		name            string
		mcpgo, gosdk, c error
	}{
		{"not found", envelope.ErrNotFound, gosdk.ErrNotFound, coreenv.ErrNotFound},
		{"access denied", envelope.ErrAccessDenied, gosdk.ErrAccessDenied, coreenv.ErrAccessDenied},
		{"authentication", envelope.ErrAuthenticationFailed, gosdk.ErrAuthenticationFailed, coreenv.ErrAuthenticationFailed},
		{"validation", envelope.ErrValidation, gosdk.ErrValidation, coreenv.ErrValidation},
		{"configuration", envelope.ErrConfiguration, gosdk.ErrConfiguration, coreenv.ErrConfiguration},
		{"execution", envelope.ErrExecutionFailed, gosdk.ErrExecutionFailed, coreenv.ErrExecutionFailed},
	}
	for _, p := range pairs {
		if p.mcpgo != p.gosdk || p.gosdk != p.c {
			t.Errorf("%s: envelope's, gosdk's and core's sentinels are different values", p.name)
		}
	}
	for _, err := range []error{shop.ErrBadCredentials, shop.ErrSessionExpired, shop.ErrNotManager,
		fmt.Errorf("product p-1: %w", gosdk.ErrNotFound), errors.New("plain")} {
		if envelope.CodeOf(err) != gosdk.CodeOf(err) {
			t.Errorf("%v: envelope.CodeOf %s, gosdk.CodeOf %s", err, envelope.CodeOf(err), gosdk.CodeOf(err))
		}
		if errors.Is(err, gosdk.ErrNotFound) != errors.Is(err, envelope.ErrNotFound) {
			t.Errorf("%v: errors.Is disagrees between the fronts' ErrNotFound", err)
		}
	}
	if got := gosdk.CodeOf(shop.ErrNotManager); got != gosdk.AccessDenied {
		t.Errorf("the shop's ErrNotManager under gosdk: %s, want access_denied", got)
	}
}
