package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// baselineVersion is the format version a baseline file carries.
const baselineVersion = 1

// Baseline pins a server's tool definitions: for each tool, its canonical
// definition and that definition's SHA-256. Write one with
// [Report.Baseline] and [Baseline.Write] (--baseline FILE), and check a
// later run against it with [WithBaseline] (--check-baseline FILE).
type Baseline struct {
	// Version is the file format's version, 1.
	Version int `json:"mcpguard_baseline"`
	// Server is the audited server's name, for the reader.
	Server string `json:"server,omitempty"`
	// Tools lists the pinned tools, sorted by name.
	Tools []PinnedTool `json:"tools"`
}

// PinnedTool is one tool of a [Baseline].
type PinnedTool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// SHA256 is the hex SHA-256 of Definition's canonical JSON.
	SHA256 string `json:"sha256"`
	// Definition holds what an agent reads of the tool: name,
	// description, inputSchema, outputSchema and annotations, with object
	// keys sorted.
	Definition map[string]any `json:"definition"`
}

// pinnedFields are the parts of a definition a baseline pins.
var pinnedFields = []string{"name", "description", "inputSchema", "outputSchema", "annotations"}

// pin returns a tool's canonical definition and its hash.
func pin(t tool) PinnedTool {
	def := map[string]any{"name": t.name}
	for _, k := range pinnedFields {
		if v, ok := t.wire[k]; ok {
			def[k] = v
		}
	}
	return PinnedTool{Name: t.name, SHA256: hashOf(def), Definition: def}
}

// canonical encodes v with sorted object keys and no HTML escaping.
func canonical(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // v was decoded from JSON, so it encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

func hashOf(def map[string]any) string {
	sum := sha256.Sum256(canonical(def))
	return hex.EncodeToString(sum[:])
}

func newBaseline(server string, tools []tool) *Baseline {
	b := &Baseline{Version: baselineVersion, Server: server}
	for _, t := range tools {
		b.Tools = append(b.Tools, pin(t))
	}
	sort.SliceStable(b.Tools, func(i, j int) bool { return b.Tools[i].Name < b.Tools[j].Name })
	return b
}

// Write writes the baseline as indented JSON with sorted keys.
func (b *Baseline) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// ReadBaseline reads a baseline written by [Baseline.Write]. It checks
// the format version and that every hash matches its definition, so a
// hand-edited baseline is caught.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(r)
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("audit: baseline: %w", err)
	}
	if b.Version != baselineVersion {
		return nil, fmt.Errorf("audit: baseline: format version %d, want %d (write it again with --baseline)", b.Version, baselineVersion)
	}
	for _, t := range b.Tools {
		if got := hashOf(t.Definition); got != t.SHA256 {
			return nil, fmt.Errorf("audit: baseline: the hash of %q does not match its definition (edited by hand?); write it again with --baseline", t.Name)
		}
	}
	return &b, nil
}

// checkBaseline is rule baseline: added, removed and changed tools.
func (a *auditor) checkBaseline(b *Baseline) {
	pinned := make(map[string]PinnedTool, len(b.Tools))
	for _, t := range b.Tools {
		pinned[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range a.tools {
		if seen[t.name] {
			continue
		}
		seen[t.name] = true
		a.item(RuleBaseline, t.name, "")
		old, ok := pinned[t.name]
		if !ok {
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineAdded, Severity: Error, Tool: t.name,
				Message: "the tool is not in the baseline: nobody has reviewed its definition",
				Fix:     "review the tool, then write the baseline again with --baseline"})
			continue
		}
		now := pin(t)
		if now.SHA256 == old.SHA256 {
			continue
		}
		diff := diffJSON("", old.Definition, now.Definition)
		a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineChanged, Severity: Error, Tool: t.name,
			Message: fmt.Sprintf("the definition changed since the baseline (%s): %s", changedParts(diff), "a tool can be rewritten after review"),
			Fix:     "review the change; if it is intended, write the baseline again with --baseline",
			Diff:    clipLines(diff, maxDiffLines)})
	}
	for _, p := range b.Tools {
		if !seen[p.Name] {
			a.item(RuleBaseline, p.Name, "")
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineRemoved, Severity: Error, Tool: p.Name,
				Message: "the baseline's tool is no longer listed; agents and prompts that use it break",
				Fix:     "if the removal is intended, write the baseline again with --baseline"})
		}
	}
}

// maxDiffLines bounds a finding's diff.
const maxDiffLines = 20

// changedParts names the top-level fields a diff touches, e.g.
// "description, inputSchema".
func changedParts(diff []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range diff {
		p := strings.TrimPrefix(l, "/")
		if i := strings.IndexAny(p, "/:"); i >= 0 {
			p = p[:i]
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func clipLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("… and %d more changes", len(lines)-n))
}

// diffJSON lists the JSON pointers at which old and new differ, each with
// both values: objects are compared key by key, anything else whole.
func diffJSON(ptr string, old, new any) []string {
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if ok1 && ok2 {
		keys := map[string]bool{}
		for k := range om {
			keys[k] = true
		}
		for k := range nm {
			keys[k] = true
		}
		var out []string
		for _, k := range sortedKeys(toAny(keys)) {
			p := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			ov, inOld := om[k]
			nv, inNew := nm[k]
			switch {
			case !inOld:
				out = append(out, fmt.Sprintf("%s: added %s", p, shortJSON(nv)))
			case !inNew:
				out = append(out, fmt.Sprintf("%s: removed (was %s)", p, shortJSON(ov)))
			default:
				out = append(out, diffJSON(p, ov, nv)...)
			}
		}
		return out
	}
	ob, nb := canonical(old), canonical(new)
	if bytes.Equal(ob, nb) {
		return nil
	}
	if os, ok := old.(string); ok {
		if ns, ok := new.(string); ok {
			return []string{fmt.Sprintf("%s: %s", ptr, stringDiff(os, ns))}
		}
	}
	return []string{fmt.Sprintf("%s: %s → %s", ptr, shortJSON(old), shortJSON(new))}
}

func toAny(m map[string]bool) map[string]any {
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}

// shortJSON renders a value for a diff line, cut to 120 bytes.
func shortJSON(v any) string {
	return clip(string(canonical(v)), 120)
}

// stringDiff shows where two strings differ: the changed middle in
// [-old-]{+new+} form, with a little common context either side.
func stringDiff(old, new string) string {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	const ctx = 30
	var b strings.Builder
	start := max(p-ctx, 0)
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(old[start:p])
	if mid := old[p : len(old)-q]; mid != "" {
		fmt.Fprintf(&b, "[-%s-]", clip(mid, 200))
	}
	if mid := new[p : len(new)-q]; mid != "" {
		fmt.Fprintf(&b, "{+%s+}", clip(mid, 200))
	}
	end := min(len(old)-q+ctx, len(old))
	b.WriteString(old[len(old)-q : end])
	if end < len(old) {
		b.WriteString("…")
	}
	return b.String()
}
