package audit

import (
	"fmt"
	mathbits "math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// word is a word of a text: where it lies in the text, and where its
// lowercased form lies in its wordList's buffer.
type word struct {
	lo, hi     int // the lowercased form, in wordList.buf
	start, end int // the word, in the text
}

// wordList is a text split into words of letters, digits and apostrophes,
// their lowercased forms side by side in one buffer: once its buffers have
// grown, splitting a text allocates nothing.
type wordList struct {
	buf []byte
	ws  []word
}

// split replaces the list with the words of s.
func (l *wordList) split(s string) {
	l.buf, l.ws = l.buf[:0], l.ws[:0]
	start, lo := -1, 0
	for i, r := range s {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\''
		switch {
		case in && start < 0:
			start, lo = i, len(l.buf)
			l.buf = utf8.AppendRune(l.buf, unicode.ToLower(r)) // what strings.ToLower does, rune by rune
		case in:
			l.buf = utf8.AppendRune(l.buf, unicode.ToLower(r))
		case start >= 0:
			l.ws = append(l.ws, word{lo, len(l.buf), start, i})
			start = -1
		}
	}
	if start >= 0 {
		l.ws = append(l.ws, word{lo, len(l.buf), start, len(s)})
	}
}

// is reports whether word i, lowercased, is in set.
func (l *wordList) is(i int, set map[string]bool) bool {
	w := l.ws[i]
	return set[string(l.buf[w.lo:w.hi])]
}

// phrase is a sequence of word sets, each within gap words of the one
// before: a pattern that costs a few map lookups a word, however long
// and hostile the text.
type phrase struct {
	steps []map[string]bool
	gaps  []int // gaps[i]: how many words step i+1 may come after step i
}

func wordSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// match reports whether steps k.. follow word i, and where the last ends.
func (p phrase) match(l *wordList, i, k int) (int, bool) {
	if k == len(p.steps) {
		return i, true
	}
	for j := i + 1; j <= i+p.gaps[k-1] && j < len(l.ws); j++ {
		if l.is(j, p.steps[k]) {
			if end, ok := p.match(l, j, k+1); ok {
				return end, true
			}
		}
	}
	return 0, false
}

// instructionPhrases match text aimed at the model rather than the user:
// the phrases public tool-poisoning scanners look for.
var instructionPhrases = []phrase{
	{[]map[string]bool{wordSet("ignore", "disregard", "forget", "override"),
		wordSet("previous", "prior", "above", "earlier", "all", "any", "other", "system", "your"),
		wordSet("instruction", "instructions", "prompt", "prompts", "rules", "directions", "guidelines")}, []int{5, 5}},
	{[]map[string]bool{wordSet("not", "don't", "dont", "never"),
		wordSet("tell", "inform", "mention", "reveal", "show", "notify", "alert"),
		wordSet("user", "users")}, []int{3, 4}},
	{[]map[string]bool{wordSet("without"), wordSet("telling", "informing", "notifying", "asking", "alerting"), wordSet("user", "users")}, []int{1, 2}},
	{[]map[string]bool{wordSet("send", "include", "pass", "append", "copy", "upload", "forward", "attach"),
		wordSet("system", "conversation", "previous", "chat"), wordSet("prompt", "history", "messages")}, []int{8, 1}},
	{[]map[string]bool{wordSet("you"), wordSet("are"), wordSet("now")}, []int{1, 1}},
	{[]map[string]bool{wordSet("new"), wordSet("instructions")}, []int{1}},
	{[]map[string]bool{wordSet("pretend"), wordSet("to"), wordSet("be")}, []int{1, 1}},
}

// secretFiles are files a tool description has no reason to name.
var secretFiles = []string{"~/.ssh", "id_rsa", "id_ed25519", ".aws/credentials", "/etc/shadow", ".netrc"}

// importantTag matches, at a "<", the tag blocks tool-poisoning attacks
// hide instructions in: <IMPORTANT>, <SYSTEM>, <instructions> and similar.
var importantTag = regexp.MustCompile(`^(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|assistant)\b[^>]{0,40}>`)

// findTag returns the first tag block in s, checking a short window at
// each "<".
func findTag(s string) string {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '<')
		if i < 0 {
			return ""
		}
		i += from
		if m := importantTag.FindString(s[i:min(i+64, len(s))]); m != "" {
			return m
		}
		from = i + 1
	}
}

// indexASCIIFold returns the byte offset of the first instance of lower
// (lowercase ASCII) in s, A-Z matching a-z, or -1.
func indexASCIIFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return i
		}
	}
	return -1
}

// phraseStarts maps each word that can start an instruction phrase to the
// phrases it starts (bit i: instructionPhrases[i]), so that a text costs
// one lookup a word, not one per phrase.
var phraseStarts = func() map[string]uint32 {
	m := map[string]uint32{}
	for i, p := range instructionPhrases {
		for w := range p.steps[0] {
			m[w] |= 1 << i
		}
	}
	return m
}()

// findInstruction returns the first instruction to the model in s, or "":
// a secret file (the first of secretFiles found), else the first match of
// the first phrase that matches. l is scratch for s's words.
func findInstruction(s string, l *wordList) string {
	for _, f := range secretFiles {
		if i := indexASCIIFold(s, f); i >= 0 {
			return s[i : i+len(f)]
		}
	}
	l.split(s)
	var found [32]string // per phrase, its first match
	var seen uint32
	for i, w := range l.ws {
		bits := phraseStarts[string(l.buf[w.lo:w.hi])] &^ seen
		for bits != 0 {
			p := bits & -bits
			bits &^= p
			k := mathbits.TrailingZeros32(p)
			if end, ok := instructionPhrases[k].match(l, i, 1); ok {
				found[k], seen = s[w.start:l.ws[end].end], seen|p
			}
		}
		if seen&1 != 0 {
			break // the first phrase matched: nothing can come before it
		}
	}
	for k := range instructionPhrases {
		if seen&(1<<k) != 0 {
			return found[k]
		}
	}
	return ""
}

// hiddenRune names what makes a rune invisible, or "".
func hiddenRune(r rune) string {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return "Unicode tag characters"
	case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0x00AD, r == 0x180E:
		return "zero-width characters"
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return "bidirectional controls"
	}
	return ""
}

// revealTags spells out what Unicode tag characters hide: each one mirrors
// an ASCII character.
func revealTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// poisonHit is one kind of poisoning found in one tool.
type poisonHit struct {
	paths []string
	what  string
}

// checkPoisoning is rule F: every string in the definition (name,
// description, title, schemas' descriptions, property names, enum values)
// is scanned for hidden Unicode, tag blocks and instructions to the model.
func (a *auditor) checkPoisoning(t tool) {
	a.item(RulePoisoning, t.name, "description")
	hits := map[string]*poisonHit{}
	note := func(check, path, what string) {
		h := hits[check]
		if h == nil {
			h = &poisonHit{what: what}
			hits[check] = h
		}
		if len(h.paths) < 3 {
			h.paths = append(h.paths, path)
		}
	}
	scan := func(s string, path func() string) {
		for _, r := range s {
			if kind := hiddenRune(r); kind != "" {
				what := kind
				if hidden := revealTags(s); hidden != "" {
					what += fmt.Sprintf(" that spell %q", clip(hidden, 80))
				}
				note(CheckHiddenUnicode, path(), what)
				break
			}
		}
		if m := findTag(s); m != "" {
			note(CheckImportantTag, path(), fmt.Sprintf("%q", m))
		}
		if m := findInstruction(s, &a.scratch.words); m != "" {
			note(CheckInstructions, path(), fmt.Sprintf("%q", clip(m, 80)))
		}
	}
	if t.wire != nil {
		w := &a.scratch.strings
		w.f, w.deep = func(s string) { scan(s, w.path) }, ""
		if w.walk(t.wire, 0); w.deep != "" {
			a.add(Finding{Rule: RuleSchemas, Check: CheckTooComplex, Severity: Error, Tool: t.name, Path: w.deep,
				Message: fmt.Sprintf("the definition nests deeper than %d levels; the audit did not read past this point for hidden instructions or external $refs", maxDefinitionDepth),
				Fix:     "flatten the definition; nothing a client needs nests this deep"})
		}
	} else {
		scan(t.name, func() string { return "name" })
		scan(t.description, func() string { return "description" })
	}
	checks := make([]string, 0, len(hits))
	for c := range hits {
		checks = append(checks, c)
	}
	sort.Strings(checks)
	for _, c := range checks {
		h := hits[c]
		var msg, fix string
		switch c {
		case CheckHiddenUnicode:
			msg = "the definition carries invisible " + h.what + "; the model reads text the user cannot see"
			fix = "remove the invisible characters"
		case CheckImportantTag:
			msg = "the definition has a tag block aimed at the model (" + h.what + "), the shape of published tool-poisoning attacks"
			fix = "state what the tool does for the user, in plain prose; never address the model with hidden instructions"
		default:
			msg = "the definition instructs the model (" + h.what + ") instead of describing the tool: tool poisoning, or text that reads like it"
			fix = "describe what the tool does, when to use it and what it returns; leave instructions to the user's prompt"
		}
		if len(h.paths) > 1 {
			msg += " (also at " + strings.Join(h.paths[1:], ", ") + ")"
		}
		a.add(Finding{Rule: RulePoisoning, Check: c, Severity: Error, Tool: t.name, Path: h.paths[0], Message: msg, Fix: fix})
	}
}

// maxDefinitionDepth bounds how deep the raw definition is read for
// strings: twice the schema walk's depth, since every schema level is an
// object and its "properties".
const maxDefinitionDepth = maxSchemaDepth * 2

// stringWalk calls f with every string of a definition, object keys
// included, keys in sorted order, and ref with every object's string
// $ref. It keeps the path as segments and renders it only when asked
// (path), for what is reported, so that reading a clean definition builds
// no paths.
type stringWalk struct {
	f    func(s string)   // nil: strings are not visited
	ref  func(ref string) // nil: $refs are not reported
	segs []pathSeg
	keys [][]string // scratch per depth: an object's sorted keys
	// deep is the path of the first value not read for being nested
	// past maxDefinitionDepth; "" if none was.
	deep string
}

// pathSeg is an object key, or an array index when index >= 0.
type pathSeg struct {
	key   string
	index int
}

// path renders the current path as the other checks do: "description",
// "inputSchema.properties.q", `inputSchema.properties["a b"]`, "x[2]".
func (w *stringWalk) path() string {
	p := ""
	for _, s := range w.segs {
		switch {
		case s.index >= 0:
			p += "[" + strconv.Itoa(s.index) + "]"
		case p == "":
			p = s.key
		default:
			p = childPath(p, s.key)
		}
	}
	return p
}

func (w *stringWalk) walk(v any, depth int) {
	if depth > maxDefinitionDepth {
		if w.deep == "" {
			w.deep = w.path()
		}
		return
	}
	switch x := v.(type) {
	case string:
		if w.f != nil {
			w.f(x)
		}
	case []any:
		for i, e := range x {
			w.segs = append(w.segs, pathSeg{index: i})
			w.walk(e, depth+1)
			w.segs = w.segs[:len(w.segs)-1]
		}
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && w.ref != nil {
			w.ref(ref)
		}
		for len(w.keys) <= depth {
			w.keys = append(w.keys, nil)
		}
		keys := w.keys[depth][:0]
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.keys[depth] = keys
		for _, k := range keys {
			w.segs = append(w.segs, pathSeg{key: k, index: -1})
			if w.f != nil {
				w.f(k)
			}
			w.walk(x[k], depth+1)
			w.segs = w.segs[:len(w.segs)-1]
		}
	}
}
