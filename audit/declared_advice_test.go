package audit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/audit"
)

// TestProbeAdvicePointsToDeclaredSchemas: a tool that acts on arguments
// its own schema rejects is told that the one line enforces that schema.
func TestProbeAdvicePointsToDeclaredSchemas(t *testing.T) {
	t.Parallel()
	var rec calls
	r, err := audit.Server(context.Background(), badServer(&rec), audit.WithProbe())
	if err != nil {
		t.Fatal(err)
	}
	f, ok := dFindings(r, "shop_list_products")[audit.CheckAccepted]
	if !ok {
		t.Fatal("no D.accepted_invalid for shop_list_products")
	}
	for _, want := range []string{"middleware.Default", "gosdk.Middleware", "validate.DeclaredSchemas"} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("the advice does not name %s: %s", want, f.Fix)
		}
	}
}
