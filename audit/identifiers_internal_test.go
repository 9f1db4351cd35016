package audit

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// identifierExpr is what identifiers replaces, kept as the oracle.
var identifierExpr = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+`)

// identifiers finds exactly what the regular expression finds, on texts
// dense in the characters that decide a match.
func TestIdentifiersMatchTheExpression(t *testing.T) {
	for _, s := range []string{"", "a", "a_b", "_a_b", "a__b", "a_b_", "a-b.c_d", "9a_b", "a9_b9", "x a_b.c- d", "é_a_b", "a_é", "ab_ cd_e", "shop_get_order."} {
		assert.Equal(t, identifierExpr.FindAllString(s, -1), identifiers(nil, s), "%q", s)
	}
	alphabet := []byte("aZ9_.- é\x80")
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if !assert.Equal(t, identifierExpr.FindAllString(s, -1), identifiers(nil, s), "%q", s) {
			return
		}
	}
}

// findPhrase is each phrase's own scan, phrase by phrase: the oracle of
// findInstruction's single pass.
func findPhrase(p phrase, s string, l *wordList) string {
	for i := range l.ws {
		if !l.is(i, p.steps[0]) {
			continue
		}
		if end, ok := p.match(l, i, 1); ok {
			return s[l.ws[i].start:l.ws[end].end]
		}
	}
	return ""
}

// findInstruction's one pass over the words finds what scanning phrase by
// phrase finds, on texts made of the phrases' own words.
func TestFindInstructionOnePass(t *testing.T) {
	var vocab []string
	for _, p := range instructionPhrases {
		for _, step := range p.steps {
			for w := range step {
				vocab = append(vocab, w)
			}
		}
	}
	slices.Sort(vocab)
	vocab = append(vocab, "the", "x", "Ignore", "USER")
	r := rand.New(rand.NewPCG(5, 6))
	var l, oracle wordList
	for range 20_000 {
		ws := make([]string, r.IntN(12))
		for i := range ws {
			ws[i] = vocab[r.IntN(len(vocab))]
		}
		s := strings.Join(ws, " ")
		want := ""
		oracle.split(s)
		for _, p := range instructionPhrases {
			if want = findPhrase(p, s, &oracle); want != "" {
				break
			}
		}
		if !assert.Equal(t, want, findInstruction(s, &l), "%q", s) {
			return
		}
	}
}
