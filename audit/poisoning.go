package audit

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// pattern is a regular expression run only on windows of text around its
// anchors, so that scanning a megabyte of description costs a pass of
// strings.Index per anchor rather than a regular-expression pass per
// pattern.
type pattern struct {
	anchors []string // lowercase ASCII; at least one occurs in any match
	re      *regexp.Regexp
}

// window is how far around an anchor a match can reach.
const window = 120

// find returns the first match in s, or "".
func (p pattern) find(s, lower string) string {
	for _, a := range p.anchors {
		for from := 0; ; {
			i := strings.Index(lower[from:], a)
			if i < 0 {
				break
			}
			i += from
			if m := p.re.FindString(s[max(i-window, 0):min(i+len(a)+window, len(s))]); m != "" {
				return m
			}
			from = i + len(a)
		}
	}
	return ""
}

// asciiLower lowercases A-Z only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// instructionPatterns match text aimed at the model rather than the user:
// the phrases public tool-poisoning scanners look for.
var instructionPatterns = []pattern{
	{[]string{"ignore", "disregard", "forget", "override"}, regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b.{0,30}\b(previous|prior|above|earlier|all|any|other|system)\b.{0,30}\b(instructions?|prompts?|rules|directions|guidelines)\b`)},
	{[]string{"user"}, regexp.MustCompile(`(?i)\b(do not|don't|never)\b.{0,30}\b(tell|inform|mention|reveal|show|notify|alert)\b.{0,30}\buser\b`)},
	{[]string{"without "}, regexp.MustCompile(`(?i)\bwithout (telling|informing|notifying|asking|alerting) the user\b`)},
	{[]string{".ssh", "id_rsa", "id_ed25519", ".aws/credentials", "/etc/shadow", ".netrc"}, regexp.MustCompile(`(?i)(~/\.ssh|\bid_rsa\b|\bid_ed25519\b|\.aws/credentials|/etc/shadow|\.netrc\b)`)},
	{[]string{"system prompt", "conversation history", "previous messages", "chat history"}, regexp.MustCompile(`(?i)\b(send|include|pass|append|copy|upload|forward)\b.{0,40}\b(system prompt|conversation history|previous messages|chat history)\b`)},
	{[]string{"you are now", "new instructions", "pretend to be", "from now on"}, regexp.MustCompile(`(?i)\b(you are now|new instructions|pretend to be|from now on,? you)\b`)},
}

// importantTag matches the tag blocks tool-poisoning attacks hide
// instructions in: <IMPORTANT>, <SYSTEM>, <instructions> and similar.
var importantTag = pattern{[]string{"<"}, regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|assistant)\b[^>]{0,40}>`)}

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
	scan := func(path, s string) {
		for _, r := range s {
			if kind := hiddenRune(r); kind != "" {
				what := kind
				if hidden := revealTags(s); hidden != "" {
					what += fmt.Sprintf(" that spell %q", clip(hidden, 80))
				}
				note(CheckHiddenUnicode, path, what)
				break
			}
		}
		lower := asciiLower(s)
		if m := importantTag.find(s, lower); m != "" {
			note(CheckImportantTag, path, fmt.Sprintf("%q", m))
		}
		for _, p := range instructionPatterns {
			if m := p.find(s, lower); m != "" {
				note(CheckInstructions, path, fmt.Sprintf("%q", clip(m, 80)))
				break
			}
		}
	}
	if t.wire != nil {
		walkStrings("", t.wire, 0, scan)
	} else {
		scan("name", t.name)
		scan("description", t.description)
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

// walkStrings calls f with every string in v, object keys included, and
// its dotted path.
func walkStrings(path string, v any, depth int, f func(path, s string)) {
	if depth > maxSchemaDepth*2 {
		return
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return childPath(path, k)
	}
	switch x := v.(type) {
	case string:
		f(path, x)
	case []any:
		for i, e := range x {
			walkStrings(path+"["+strconv.Itoa(i)+"]", e, depth+1, f)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			f(join(k), k)
			walkStrings(join(k), x[k], depth+1, f)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
