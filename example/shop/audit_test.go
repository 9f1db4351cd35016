package shop_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/audit/audittest"
	"github.com/mcpguard/mcpguard/example/shop"
)

// The example gets full marks on all four agent-readiness rules, probe
// included, through the same chain a client talks to. Infos (the legacy
// tool answering invalid arguments with execution_failed, a tool that
// takes no arguments) do not count against a score.
func TestAuditFullMarks(t *testing.T) {
	s := shop.NewServer(open(t), shop.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	r := audittest.RequireServer(t, s, audit.WithProbe(), audit.WithFailOn(audit.Warning))
	if !r.Perfect() {
		t.Errorf("want 100%% on every rule, got %s", r.Summary())
	}
	for _, rule := range []audit.Rule{audit.RuleNames, audit.RuleDescriptions, audit.RuleSchemas, audit.RuleErrors} {
		if got := r.Scores.Rule(rule); got == nil || got.Percent != 100 {
			t.Errorf("rule %v: %+v", rule, got)
		}
	}
	t.Log(r.Summary())
}
