package envelope

import (
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNeedlesArePromisedByThePattern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{`ENOENT`, []string{"enoent"}},
		{`(?i)Connection Refused`, []string{"connection refused"}},
		{`ab(?:cd|ef)`, []string{"ab"}},           // a tie keeps the first part
		{`a(?:bcd|efg)`, []string{"bcd", "efg"}},  // the longer promise wins
		{`(?:ab){1,2}c`, []string{"ab"}},          // a repeat at least once promises its part
		{`(?:ab){0,2}c`, []string{"c"}},           // a repeat that may be absent promises nothing
		{`(?:abc)+d`, []string{"abc"}},            // so does a plus
		{`(?:abc)*d`, []string{"d"}},              // a star does not
		{`(?:abc)?d`, []string{"d"}},              // nor a question mark
		{`x|\d+`, []string{"x", ""}},              // a branch that promises nothing
		{`\d+`, []string{""}},                     // nothing at all
		{`(abc)\d`, []string{"abc"}},              // a capture promises its content
		{`^Not Found\.?$`, []string{"not found"}}, // anchors and optional parts promise nothing
		{`(?i)\bſyntax\b`, []string{"syntax"}},    // the long s is folded
		{`(?:foo|bar)baz(?:quux|corge)`, []string{"quux", "corge"}},
	} {
		tree, err := syntax.Parse(c.pattern, syntax.Perl)
		require.NoError(t, err)
		assert.Equal(t, c.want, needles(tree.Simplify()), c.pattern)
	}
	assert.Equal(t, []string{"enoent"}, compile(`ENOENT`).needles)
	assert.Panics(t, func() { compile(`(`) })
}

func TestLowerFold(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "syntax error: enoent", lowerFold("ſyntax Error: ENOENT"))
}
