package leak

import "math"

// A token whose prefix no rule knows is recognised by its shape. The
// thresholds were chosen on random tokens and on the identifiers agents
// pass to the next call:
//
//   - at least minTokenLen characters of base64url ([A-Za-z0-9_-]), the
//     length of the shortest common generic API key;
//   - not hexadecimal only: UUIDs, commit SHAs, SHA-256 digests, trace
//     and request IDs are hex, and an agent needs them verbatim (a hex
//     secret is still caught by its key's name or its vendor prefix);
//   - at least one letter and one digit, and at least minTokenEntropy bits
//     of Shannon entropy per character (a random 32-character base36 token
//     has 3.5 or more);
//   - less than maxWordShare of its characters in word-like runs (four or
//     more letters in one case, or capitalised, a quarter of them vowels):
//     TestHandlerPrintsItsTokens2 and shop_search_products_v2 are words,
//     random base62 almost never is (about 2% of 32-character tokens are
//     missed, fewer as they grow; 18% of lower-case base36 ones).
const (
	minTokenLen     = 32
	minTokenEntropy = 3.5
	maxWordShare    = 0.45
	minWordLen      = 4
)

// HighEntropyTokens appends to dst every run of base64url characters in s
// that reads as a random token rather than an identifier, to be replaced
// by the placeholder. Work is linear in len(s).
func HighEntropyTokens(s string, dst []SecretValue) []SecretValue {
	for i := 0; i < len(s); {
		if !isTokenChar(s[i]) {
			i++
			continue
		}
		j := tokenRunEnd(s, i)
		if j-i >= minTokenLen && looksRandom(s[i:j]) {
			dst = append(dst, SecretValue{i, j, Placeholder})
		}
		i = j
	}
	return dst
}

// mayHoldToken reports whether s has a run of base64url characters long
// enough for HighEntropyTokens: the cheap check before the measures.
func mayHoldToken(s string) bool {
	for i := 0; i+minTokenLen <= len(s); {
		if !isTokenChar(s[i]) {
			i++
			continue
		}
		j := tokenRunEnd(s, i)
		if j-i >= minTokenLen {
			return true
		}
		i = j
	}
	return false
}

func isTokenChar(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

func tokenRunEnd(s string, i int) int {
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return i
}

// looksRandom applies the measures above to one run.
func looksRandom(w string) bool {
	var counts [256]int
	hexOnly, letters, digits := true, 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		counts[c]++
		switch {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
			if c|0x20 > 'f' {
				hexOnly = false
			}
		}
	}
	if hexOnly || letters == 0 || digits == 0 {
		return false
	}
	return entropy(&counts, len(w)) >= minTokenEntropy && float64(wordChars(w)) < maxWordShare*float64(len(w))
}

// entropy is the Shannon entropy, in bits per character, of n characters
// with the given counts.
func entropy(counts *[256]int, n int) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordChars counts the characters of w in word-like runs: lower-case
// letters, a capital and lower-case letters, or capitals (the last capital
// before lower case starts the next word, as in HTTPServer), at least
// minWordLen long and a quarter vowels.
func wordChars(w string) int {
	n := 0
	for i := 0; i < len(w); {
		j := wordEnd(w, i)
		if j == i {
			i++
			continue
		}
		if j-i >= minWordLen && 4*vowels(w[i:j]) >= j-i {
			n += j - i
		}
		i = j
	}
	return n
}

// wordEnd returns the end of the word that starts at i, or i when no word
// starts there.
func wordEnd(w string, i int) int {
	j := i
	switch {
	case isUpper(w[i]) && i+1 < len(w) && isUpper(w[i+1]):
		for j < len(w) && isUpper(w[j]) {
			j++
		}
		if j < len(w) && isLower(w[j]) {
			j-- // HTTPServer: the S starts Server
		}
	case isUpper(w[i]):
		j++
		fallthrough
	case isLower(w[i]):
		for j < len(w) && isLower(w[j]) {
			j++
		}
	}
	return j
}

func vowels(w string) int {
	n := 0
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			n++
		}
	}
	return n
}
