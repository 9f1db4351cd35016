package audit

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/str"
)

// triggerWords mark a description that says when to call the tool: a
// trigger ("use this when", "before") or a precondition ("after",
// "requires", "once").
var triggerWords = regexp.MustCompile(`(?i)\b(use (this|it)|call (this|it)|when(ever)?|before|after|once|if|unless|requires?|prerequisite|first|only after|in order to)\b`)

// nextWords mark a description that says what comes next.
var nextWords = regexp.MustCompile(`(?i)\b(then|next|afterwards|followed by|follow (it )?(up )?with|pass (it|them|the \w+|its \w+) to|feed (it|them)|use the (result|returned|output))\b`)

// identifiers returns the tool-name-like words of s, what the regular
// expression [A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+ finds in it
// (FindAllString): two or more segments of ASCII letters and digits,
// joined by "_", "." or "-", the first starting with a letter. A scan
// rather than the expression, which took a tenth of a large audit.
func identifiers(out []string, s string) []string {
	for i := 0; i < len(s); {
		if !asciiLetter(s[i]) {
			i++
			continue
		}
		end := alnumRun(s, i)
		j, segments := end, 1
		for j+1 < len(s) && (s[j] == '_' || s[j] == '.' || s[j] == '-') && asciiAlnum(s[j+1]) {
			j = alnumRun(s, j+1)
			segments++
		}
		if segments > 1 {
			out = append(out, s[i:j])
			i = j
			continue
		}
		i = end // no later start within this run can match either
	}
	return out
}

func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func asciiAlnum(c byte) bool { return asciiLetter(c) || '0' <= c && c <= '9' }

// alnumRun returns the end of the run of ASCII letters and digits at i.
func alnumRun(s string, i int) int {
	for i < len(s) && asciiAlnum(s[i]) {
		i++
	}
	return i
}

func (a *auditor) checkDescription(t tool) {
	a.item(RuleDescriptions, t.name, "description")
	d := strings.TrimSpace(t.description)
	f := func(check string, sev Severity, msg, fix string) {
		a.add(Finding{Rule: RuleDescriptions, Check: check, Severity: sev, Tool: t.name, Path: "description", Message: msg, Fix: fix})
	}
	if d == "" {
		f(CheckDescMissing, Error, "the tool has no description; the model chooses tools by their descriptions and will skip or misuse this one",
			"describe when to call it (a trigger or precondition), what it returns, and which tool comes next")
		return
	}
	n := utf8.RuneCountInString(d)
	if n < a.o.minDesc {
		f(CheckDescShort, Warning, fmt.Sprintf("the description is %d characters; too short to tell the model when to call this tool rather than another", n),
			fmt.Sprintf("write at least %d characters: when to use it, what it returns, what to call next", a.o.minDesc))
	}
	if n > a.o.maxDesc {
		f(CheckDescLong, Warning, fmt.Sprintf("the description is %d characters; every loaded tool's description costs context on every turn, and clients may truncate it", n),
			fmt.Sprintf("cut it to at most %d characters; move reference material into property descriptions or a resource", a.o.maxDesc))
	}
	if !triggerWords.MatchString(d) {
		f(CheckDescWhen, Warning, "the description says what the tool does but not when to use it; the model cannot tell which step of a task this tool is for",
			`add a trigger or precondition, e.g. "Use this when …" or "Call this after …"`)
	}
	words := identifiers(a.scratch.identifiers[:0], d)
	a.scratch.identifiers = words
	if !nextWords.MatchString(d) && !a.namesOtherTool(t, words) {
		f(CheckDescNext, Info, "the description does not say what comes next; the model has to discover the follow-up step itself",
			"name the natural successor tool, if there is one, e.g. \"Then call <prefix>_get_x with the returned id.\"")
	}
	a.checkNamedTools(t, words)
}

// namesOtherTool reports whether a description, by its identifiers,
// mentions another tool of the server.
func (a *auditor) namesOtherTool(t tool, words []string) bool {
	for _, w := range words {
		if w != t.name && a.names[w] > 0 {
			return true
		}
	}
	return false
}

// checkNamedTools flags tool names among a description's identifiers that
// the server does not have: a name with the server's prefix, or a tool's
// old unprefixed name. An identifier cannot end with "." or "-", so the
// sorted words hold each one's repeats side by side.
func (a *auditor) checkNamedTools(t tool, words []string) {
	props, _ := t.schema["properties"].(map[string]any)
	sort.Strings(words)
	for i, w := range words {
		if i > 0 && w == words[i-1] {
			continue
		}
		if _, isProp := props[w]; isProp || w == t.name || a.names[w] > 0 {
			continue
		}
		kind, near := a.unknownTool(w)
		if kind == knownWord {
			continue
		}
		a.addText(Finding{Rule: RuleDescriptions, Check: CheckDescUnknownTool, Severity: Error, Tool: t.name, Path: "description"},
			func() (string, string) { return unknownToolText(kind, w, a.prefix, near) })
	}
}

// Why a description's identifier is reported as a tool the server lacks.
const (
	knownWord      = iota // not reported: no tool name, or a real one
	prefixedName          // carries the server's prefix
	unprefixedName        // a real tool's name without its prefix
	nearName              // within two edits of a real tool's name
)

// unknownTool says whether an identifier that is neither a tool nor a
// property of this one is reported, and why; near is the real name a
// near-miss is close to.
func (a *auditor) unknownTool(w string) (kind int, near string) {
	switch {
	case a.prefix != "" && strings.HasPrefix(w, a.prefix) && len(w) > len(a.prefix):
		return prefixedName, ""
	case a.prefix != "" && a.names[a.prefix+w] > 0:
		return unprefixedName, ""
	case strings.Contains(w, "_"):
		if near := a.nearestTool(w); near != "" {
			return nearName, near
		}
	}
	return knownWord, ""
}

// unknownToolText is the message and fix of a B.unknown_tool finding.
func unknownToolText(kind int, w, prefix, near string) (msg, fix string) {
	switch kind {
	case prefixedName:
		return fmt.Sprintf("the description names %q, which this server does not have; the model will call it and fail", w),
			"name an existing tool, or add the missing one"
	case unprefixedName:
		return fmt.Sprintf("the description names %q, an unprefixed name this server does not have; the model will call it and fail", w),
			fmt.Sprintf("name the tool as the server lists it: %q", prefix+w)
	}
	return fmt.Sprintf("the description names %q, which this server does not have (did you mean %q?); the model will call it and fail", w, near),
		fmt.Sprintf("name the tool as the server lists it: %q", near)
}

// nearestTool returns the tool whose name is within two edits of w, for
// names long enough that two edits are a typo or a rename rather than
// another word; ties go to the first name in byte order.
func (a *auditor) nearestTool(w string) string {
	if len(w) < minNearName {
		return ""
	}
	if a.near == nil {
		a.near = newNameIndex(a.names)
	}
	return a.near.nearest(w)
}

// minNearName is the shortest name the near-miss search considers.
const minNearName = 6

// maxNearCandidates bounds the names verified per word, so that the search
// is linear in the words of all descriptions even on a list where
// thousands of names share long fragments. Real servers' names never
// reach it.
const maxNearCandidates = 64

// nameIndex finds names within two edits of a word without comparing the
// word with every name. Each name is cut into three pieces; two edits
// touch at most two of them, so one piece of any name within two edits
// appears verbatim in the word, shifted by at most two positions. The
// index maps (name length, piece number, piece) to the names, and a query
// looks up the at most 5 lengths x 3 pieces x 5 shifts keys the word can
// match. Only the names found are compared with the word.
type nameIndex struct {
	names  []string
	pieces map[pieceKey][]int32
	stamp  []uint32 // per name, the query that last saw it
	query  uint32
	memo   map[string]string
	lists  [][]int32 // scratch: the lists a query looks at
	// lengths[n] is set when some name is n bytes long: a query looks up
	// only the lengths that exist.
	lengths []bool
	// dist computes the Levenshtein distance (a transposition is two
	// edits, as the pieces above assume), reusing its scratch.
	dist str.Distances
	// verified counts edit distances computed, for the test that holds
	// the search to its bound.
	verified int
}

type pieceKey struct {
	n, i  int
	piece string
}

// pieceAt returns the start and length of piece i of a name n bytes long.
func pieceAt(n, i int) (start, length int) {
	start, end := n*i/3, n*(i+1)/3
	return start, end - start
}

func newNameIndex(names map[string]int) *nameIndex {
	x := &nameIndex{pieces: map[pieceKey][]int32{}, memo: map[string]string{}, dist: str.Distances{Levenshtein: true}}
	for name := range names {
		if len(name) >= minNearName {
			x.names = append(x.names, name)
		}
	}
	sort.Strings(x.names)
	x.stamp = make([]uint32, len(x.names))
	for id, name := range x.names {
		for len(x.lengths) <= len(name) {
			x.lengths = append(x.lengths, false)
		}
		x.lengths[len(name)] = true
		for i := range 3 {
			start, length := pieceAt(len(name), i)
			k := pieceKey{len(name), i, name[start : start+length]}
			x.pieces[k] = append(x.pieces[k], int32(id))
		}
	}
	return x
}

func (x *nameIndex) nearest(w string) string {
	if best, ok := x.memo[w]; ok {
		return best
	}
	// The lists of the pieces w contains, rarest first: a distinctive
	// piece ("00042") finds the name sooner than a shared one ("tool_").
	lists := x.lists[:0]
	for n := max(len(w)-2, minNearName); n <= len(w)+2; n++ {
		if n >= len(x.lengths) || !x.lengths[n] {
			continue
		}
		for i := range 3 {
			start, length := pieceAt(n, i)
			for at := max(start-2, 0); at <= start+2 && at+length <= len(w); at++ {
				if l := x.pieces[pieceKey{n, i, w[at : at+length]}]; len(l) > 0 {
					lists = append(lists, l)
				}
			}
		}
	}
	slices.SortStableFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	x.lists = lists
	x.query++
	best, bestD, verified := "", 3, 0
	for _, l := range lists {
		for _, id := range l {
			if verified == maxNearCandidates {
				break
			}
			if x.stamp[id] == x.query {
				continue
			}
			x.stamp[id] = x.query
			verified++
			name := x.names[id]
			// Only a distance up to bestD can change the answer.
			if d := x.dist.Between(w, name, min(bestD+1, 3)); d < bestD || (d == bestD && d < 3 && name < best) {
				best, bestD = name, d
			}
		}
	}
	x.verified += verified
	if bestD > 2 {
		best = ""
	}
	if len(lists) > 0 { // a word no piece matched costs less to search again than to remember
		x.memo[w] = best
	}
	return best
}
