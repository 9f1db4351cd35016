package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAuditBothFronts runs mcpguard-audit --probe, as a user would, on the
// shop served over stdio by each front: both must score 100% on the four
// agent-readiness rules A-D, the probe's invalid calls included, with no
// finding at warning or above.
func TestAuditBothFronts(t *testing.T) {
	t.Parallel()
	audit := filepath.Join(t.TempDir(), "mcpguard-audit")
	if out, err := exec.Command("go", "build", "-o", audit, "../cmd/mcpguard-audit").CombinedOutput(); err != nil {
		t.Fatalf("building mcpguard-audit: %v\n%s", err, out)
	}
	bin, err := filepath.Abs(shopServer(t))
	if err != nil {
		t.Fatal(err)
	}
	forEachFront(t, func(t *testing.T, f front) {
		args := append([]string{"--probe", "--fail-on", "warning", "--format", "json", "--", bin}, f.args...)
		out, err := exec.Command(audit, args...).Output()
		if err != nil {
			t.Fatalf("mcpguard-audit %v: %v\n%s", args, err, out)
		}
		var report struct {
			Probed bool                       `json:"probed"`
			Scores map[string]json.RawMessage `json:"scores"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("the JSON report: %v\n%s", err, out)
		}
		if !report.Probed {
			t.Errorf("the server was not probed:\n%s", out)
		}
		for _, rule := range []string{"A", "B", "C", "D"} {
			var score struct {
				Checked int     `json:"checked"`
				Percent float64 `json:"percent"`
			}
			if err := json.Unmarshal(report.Scores[rule], &score); err != nil || score.Checked == 0 || score.Percent != 100 {
				t.Errorf("rule %s: %s, want 100%% of a non-zero number of checks\n%s", rule, report.Scores[rule], out)
			}
		}
	})
}
