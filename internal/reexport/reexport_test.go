package reexport_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/reexport"
)

// Load reads a package's export data, and Of finds its vocabulary.
func TestOfReadsTheVocabulary(t *testing.T) {
	pkgs, err := reexport.Load("io/fs", "errors")
	if err != nil {
		t.Fatal(err)
	}
	v := reexport.Of(pkgs["io/fs"])
	for _, name := range []string{"ErrNotExist", "ErrPermission"} {
		found := false
		for _, s := range v.Sentinels {
			found = found || s == name
		}
		if !found {
			t.Errorf("sentinel %s not found in %v", name, v.Sentinels)
		}
	}
	if v.Consts["ModeDir"] == "" {
		t.Errorf("constant ModeDir not found: %v", v.Consts)
	}
	if got := reexport.Compare(pkgs["io/fs"], pkgs["io/fs"], nil); len(got) != 0 {
		t.Errorf("a package departs from itself: %v", got)
	}
	if got := reexport.Compare(pkgs["io/fs"], pkgs["errors"], nil); len(got) == 0 {
		t.Error("errors re-exports nothing of io/fs, yet Compare found nothing")
	}
}
