package gosdk_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/reexport"
)

// The go-sdk front re-exports core/envelope's vocabulary (its constants,
// codes, sentinels and error decorators) and adds none: the mcp-go
// front's envelope package is held to the same core by its own test, so
// the two fronts cannot drift apart.
func TestReexportsCoresVocabulary(t *testing.T) {
	t.Parallel()
	const core, front = "github.com/mcpguard/mcpguard/core/envelope", "github.com/mcpguard/mcpguard/gosdk"
	pkgs, err := reexport.Load(core, front)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range reexport.Compare(pkgs[core], pkgs[front], nil) {
		t.Error(d)
	}
}
