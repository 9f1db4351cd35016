package pin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/str"
)

// MaxDiffLines bounds the lines [Diff] returns; a last line counts the
// rest.
const MaxDiffLines = 20

// Diff lists where two tool definitions differ, one line per JSON pointer
// with both values ("/description: …[-old-]{+new+}…"), objects compared
// member by member and anything else whole, at most [MaxDiffLines] lines.
// Strings show their changed middle with a little context.
func Diff(old, new []byte) []string {
	var o, n any
	_ = decode(old, &o) // an undecodable side reads as null: the whole value differs
	_ = decode(new, &n)
	lines := diff("", o, n)
	if len(lines) <= MaxDiffLines {
		return lines
	}
	return append(lines[:MaxDiffLines:MaxDiffLines], fmt.Sprintf("… and %d more changes", len(lines)-MaxDiffLines))
}

// Parts names the top-level members a diff touches, e.g.
// "description, inputSchema".
func Parts(diff []string) string {
	var parts []string
	for _, l := range diff {
		if !strings.HasPrefix(l, "/") {
			continue
		}
		p := l[1:]
		if i := strings.IndexAny(p, "/:"); i >= 0 {
			p = p[:i]
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func decode(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func diff(ptr string, old, new any) []string {
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if ok1 && ok2 {
		return diffObjects(ptr, om, nm)
	}
	ob, nb := encode(old), encode(new)
	if ob == nb {
		return nil
	}
	if os, ok := old.(string); ok {
		if ns, ok := new.(string); ok {
			return []string{fmt.Sprintf("%s: %s", ptr, stringDiff(os, ns))}
		}
	}
	return []string{fmt.Sprintf("%s: %s → %s", ptr, short(ob), short(nb))}
}

func diffObjects(ptr string, om, nm map[string]any) []string {
	keys := make([]string, 0, len(om)+len(nm))
	for k := range om {
		keys = append(keys, k)
	}
	for k := range nm {
		if _, ok := om[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		p := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		ov, inOld := om[k]
		nv, inNew := nm[k]
		switch {
		case !inOld:
			out = append(out, fmt.Sprintf("%s: added %s", p, short(encode(nv))))
		case !inNew:
			out = append(out, fmt.Sprintf("%s: removed (was %s)", p, short(encode(ov))))
		default:
			out = append(out, diff(p, ov, nv)...)
		}
	}
	return out
}

// encode renders a decoded value with sorted keys and no HTML escaping.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // v was decoded from JSON, so it encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func short(s string) string { return str.Clip(s, 120, "…") }

// stringDiff shows where two strings differ: the changed middle in
// [-old-]{+new+} form, with a little common context either side.
func stringDiff(old, new string) string {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && (p < len(old) && !utf8.RuneStart(old[p]) || p < len(new) && !utf8.RuneStart(new[p])) {
		p-- // not inside a character
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	for q > 0 && !utf8.RuneStart(old[len(old)-q]) {
		q--
	}
	const ctx = 30
	var b strings.Builder
	start := max(p-ctx, 0)
	for start < p && !utf8.RuneStart(old[start]) {
		start++
	}
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(old[start:p])
	if mid := old[p : len(old)-q]; mid != "" {
		fmt.Fprintf(&b, "[-%s-]", str.Clip(mid, 200, "…"))
	}
	if mid := new[p : len(new)-q]; mid != "" {
		fmt.Fprintf(&b, "{+%s+}", str.Clip(mid, 200, "…"))
	}
	end := min(len(old)-q+ctx, len(old))
	for end < len(old) && !utf8.RuneStart(old[end]) {
		end--
	}
	b.WriteString(old[len(old)-q : end])
	if end < len(old) {
		b.WriteString("…")
	}
	return b.String()
}
