package audit

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The near-miss search finds every name within two edits, whichever edits
// they are, and compares a word with a bounded number of names even when
// thousands of names share most of their letters.
func TestNameIndex(t *testing.T) {
	names := map[string]int{}
	for i := range 5_000 {
		names[fmt.Sprintf("gen_tool_%05d", i)] = 1
	}
	names["shop_search_products"] = 1
	x := newNameIndex(names)
	for w, want := range map[string]string{
		"gen_tool_00042x":     "gen_tool_00042", // insertion at the end
		"xgen_tool_00042":     "gen_tool_00042", // insertion at the start
		"gen_tol_00042":       "gen_tool_00042", // deletion
		"gen_tool_00O42":      "gen_tool_00042", // substitution
		"gne_tool_00042":      "gen_tool_00042", // transposition (two edits)
		"shop_serch_product":  "shop_search_products",
		"shop_search_prodcts": "shop_search_products",
		"shop_saerch_prodcts": "", // three edits
		"completely_other":    "",
	} {
		assert.Equal(t, want, x.nearest(w), w)
	}
	queries := 9
	assert.LessOrEqual(t, x.verified, queries*maxNearCandidates)
	before := x.verified
	x.nearest("gen_tool_00042x")
	assert.Equal(t, before, x.verified, "a word seen before is not searched again")
}

// clip never cuts a character in half, and its bound holds the ellipsis.
func TestClipKeepsCharactersWhole(t *testing.T) {
	assert.Equal(t, "é…", clip("ééé", 5))
	assert.Equal(t, "…", clip("ééé", 4))
	assert.Equal(t, "ab…", clip("abcdef", 5))
	assert.Equal(t, "ééé", clip("ééé", 6))
	assert.Equal(t, "…", clip("😀", 3))
}
