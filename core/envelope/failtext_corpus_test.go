package envelope_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// realFailure is one text of testdata/failtexts.json: what a server
// answered to a call that failed, recorded on the wire (the two mcp-go
// servers git-mcp-go and mcp-filesystem-server, the npm servers e2e/node
// pins, git and redis-server for issue 48's texts), and the type an agent
// needs it to be.
type realFailure struct {
	Source    string
	Tool      string
	Text      string
	Want      envelope.Code
	Retryable bool
	Step      string // the first next step, when it is the server's own fix
}

func realFailures(t *testing.T) []realFailure {
	t.Helper()
	b, err := os.ReadFile("testdata/failtexts.json")
	require.NoError(t, err)
	var fs []realFailure
	require.NoError(t, json.Unmarshal(b, &fs))
	require.GreaterOrEqual(t, len(fs), 60)
	return fs
}

// TestClassifyTextRealFailures renders each recorded failure as a front
// does (Renderer.Text) and reads the envelope's JSON: its type, retryable
// and, where the server's text states its own fix, the first next step.
// It logs the share of texts given a specific type (not
// execution_failed), per server.
func TestClassifyTextRealFailures(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer(envelope.WithLogger(discard()))
	specific := map[string][2]int{}
	var sources []string
	for _, f := range realFailures(t) {
		env, raw := text(t, r, f.Text)
		assert.Equal(t, f.Want, env.ErrorType, "%s %s: %q: %s", f.Source, f.Tool, f.Text, raw)
		assert.Equal(t, f.Retryable, env.Retryable, "retryable of %q", f.Text)
		if f.Step != "" && assert.NotEmpty(t, env.NextSteps, raw) {
			assert.Equal(t, f.Step, env.NextSteps[0], "the server's own fix of %q", f.Text)
		}
		if _, ok := specific[f.Source]; !ok {
			sources = append(sources, f.Source)
		}
		n := specific[f.Source]
		n[1]++
		if env.ErrorType != envelope.ExecutionFailed {
			n[0]++
		}
		specific[f.Source] = n
	}
	var b strings.Builder
	var all [2]int
	for _, s := range sources {
		n := specific[s]
		all[0], all[1] = all[0]+n[0], all[1]+n[1]
		fmt.Fprintf(&b, "%-52s %2d of %2d specific\n", s, n[0], n[1])
	}
	fmt.Fprintf(&b, "%-52s %2d of %2d specific (%.0f%%)\n", "all", all[0], all[1], 100*float64(all[0])/float64(all[1]))
	t.Log("\n" + b.String())
}
