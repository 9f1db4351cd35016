package audit

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Report is the result of an audit.
type Report struct {
	// Server is the name given with [WithServerName], if any.
	Server string `json:"server,omitempty"`
	// Tools lists the audited tools' names, sorted.
	Tools []string `json:"tools"`
	// Prefix is the namespace prefix the names were checked against: the
	// one given with [WithPrefix] or the one detected. Empty if none.
	Prefix string `json:"prefix,omitempty"`
	// PrefixDetected reports whether Prefix was detected rather than given.
	PrefixDetected bool `json:"prefix_detected,omitempty"`
	// Probed reports whether rule D was checked.
	Probed bool `json:"probed"`
	// FailOn is the threshold [Report.Failed] applies by default.
	FailOn Severity `json:"fail_on"`
	// Scores holds the score of each rule and the overall score.
	Scores Scores `json:"scores"`
	// Findings lists the findings, sorted by tool, rule and path: all of
	// them, up to [Limits] FindingsPerRule per rule.
	Findings []Finding `json:"findings"`
	// Omitted counts, per rule, the findings beyond the per-rule limit that
	// Findings leaves out. Empty when none were left out.
	Omitted map[Rule]int `json:"omitted,omitempty"`
	// Incomplete says why the audit stopped before its end (the deadline
	// passed); empty when it ran to the end. An incomplete report fails.
	Incomplete string `json:"incomplete,omitempty"`
	// Ignored lists the findings an ignore list ([WithIgnore]) accepted,
	// each with its reason. They do not fail the report.
	Ignored []IgnoredFinding `json:"ignored,omitempty"`
	// UnusedIgnores lists the ignore entries that matched no finding: the
	// problem they accepted is gone, and the entry can go too.
	UnusedIgnores []IgnoreEntry `json:"unused_ignores,omitempty"`
	// EstimatedTokens is the tool list's estimated size in tokens.
	EstimatedTokens int `json:"estimated_tokens"`

	listed []tool // for Baseline
}

// Baseline returns the listed tools' definitions pinned, each as the
// server sent it, to write with [Baseline.Write] and check later runs
// against with [WithBaseline]. It fails for a report decoded from JSON,
// which holds no definitions, and for a listing that cannot be pinned: a
// definition with no canonical form, or two tools of one name.
func (r *Report) Baseline() (*Baseline, error) {
	if r.listed == nil {
		return nil, errors.New("audit: baseline: the report holds no tool definitions (it was decoded from JSON)")
	}
	return newBaseline(r.Server, r.listed)
}

// Scores holds a [Score] per scored rule and their mean. D is nil unless
// the server was probed and had at least one probeable tool.
type Scores struct {
	A *Score `json:"A,omitempty"`
	B *Score `json:"B,omitempty"`
	C *Score `json:"C,omitempty"`
	D *Score `json:"D,omitempty"`
	E *Score `json:"E,omitempty"`
	F *Score `json:"F,omitempty"`
	// Overall is the mean of the rules' percentages.
	Overall float64 `json:"overall"`
}

// Score counts, for one rule, the items it checked and those that passed.
// The items are: for A each tool name, for B each description, for C each
// schema node (the input schema and every property, nested ones included),
// for D each probed tool, for E and F each tool. An item passes when no error or warning is
// reported against it; infos do not count.
type Score struct {
	Checked int     `json:"checked"`
	Passed  int     `json:"passed"`
	Percent float64 `json:"percent"`
}

// Rule returns the score of one rule, or nil.
func (s Scores) Rule(r Rule) *Score {
	switch r {
	case RuleNames:
		return s.A
	case RuleDescriptions:
		return s.B
	case RuleSchemas:
		return s.C
	case RuleErrors:
		return s.D
	case RuleAnnotations:
		return s.E
	case RulePoisoning:
		return s.F
	}
	return nil
}

// set stores the score of one rule.
func (s *Scores) set(r Rule, sc *Score) {
	switch r {
	case RuleNames:
		s.A = sc
	case RuleDescriptions:
		s.B = sc
	case RuleSchemas:
		s.C = sc
	case RuleErrors:
		s.D = sc
	case RuleAnnotations:
		s.E = sc
	case RulePoisoning:
		s.F = sc
	}
}

func (a *auditor) scores() Scores {
	var s Scores
	var sum float64
	var n int
	for _, r := range Rules() {
		items := a.items[r]
		if len(items) == 0 {
			if r == RuleErrors || len(a.tools) == 0 {
				continue
			}
		}
		sc := &Score{Checked: len(items)}
		for _, ok := range items {
			if ok {
				sc.Passed++
			}
		}
		sc.Percent = 100
		if sc.Checked > 0 {
			sc.Percent = math.Round(1000*float64(sc.Passed)/float64(sc.Checked)) / 10
		}
		sum += sc.Percent
		n++
		s.set(r, sc)
	}
	if n > 0 {
		s.Overall = math.Round(10*sum/float64(n)) / 10
	}
	return s
}

// percent renders a percentage for people: rounded down, so that 99.6
// never shows as a perfect 100%.
func percent(p float64) string {
	return fmt.Sprintf("%d%%", int(math.Floor(p+1e-9)))
}

// Summary renders the scores on one line, e.g.
// "A 100%, B 80%, C 95%, D 100%, E 100%, F 100%, overall 95%", for a badge
// or a CI log.
func (r *Report) Summary() string {
	var parts []string
	for _, rule := range Rules() {
		if sc := r.Scores.Rule(rule); sc != nil {
			parts = append(parts, string(rule)+" "+percent(sc.Percent))
		}
	}
	parts = append(parts, "overall "+percent(r.Scores.Overall))
	return strings.Join(parts, ", ")
}

// Count returns how many findings have severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// AtLeast returns the findings of severity s or higher.
func (r *Report) AtLeast(s Severity) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity >= s {
			out = append(out, f)
		}
	}
	return out
}

// Failed reports whether any finding is at or above threshold, or the
// audit is [Report.Incomplete]. With no argument it uses the report's
// FailOn.
func (r *Report) Failed(threshold ...Severity) bool {
	if r.Incomplete != "" {
		return true
	}
	t := r.FailOn
	if len(threshold) > 0 {
		t = threshold[0]
	}
	if t == 0 {
		t = Error
	}
	return len(r.AtLeast(t)) > 0
}

// WithCheck returns the findings of one check, e.g. [CheckEnum].
func (r *Report) WithCheck(check string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Check < b.Check
	})
}

// WriteText writes the human report: the scores, then the findings grouped
// by tool, each with its fix, then the totals.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	name := r.Server
	if name == "" {
		name = "server"
	}
	fmt.Fprintf(&b, "mcpguard-audit: %s, %d tool(s)", printable(name), len(r.Tools))
	switch {
	case r.Prefix != "" && r.PrefixDetected:
		fmt.Fprintf(&b, ", namespace prefix %q (detected)", r.Prefix)
	case r.Prefix != "":
		fmt.Fprintf(&b, ", namespace prefix %q", r.Prefix)
	default:
		b.WriteString(", no namespace prefix")
	}
	if !r.Probed {
		b.WriteString(", rule D not probed (use --probe)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "score: %s\n", r.Summary())
	if r.Incomplete != "" {
		fmt.Fprintf(&b, "INCOMPLETE: %s\n", printable(r.Incomplete))
	}

	byTool := map[string][]Finding{}
	for _, f := range r.Findings {
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}
	for _, t := range r.toolOrder(byTool) {
		title := printable(t)
		if t == "" {
			title = "(server)"
		}
		if len(byTool[t]) == 0 {
			fmt.Fprintf(&b, "\n%s: ok\n", title)
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, f := range byTool[t] {
			writeFinding(&b, f)
		}
	}
	fmt.Fprintf(&b, "\n%d error(s), %d warning(s), %d info(s)", r.Count(Error), r.Count(Warning), r.Count(Info))
	if n := r.omittedTotal(); n > 0 {
		fmt.Fprintf(&b, ", %d more not listed (over the per-rule limit)", n)
	}
	if n := len(r.Ignored); n > 0 {
		fmt.Fprintf(&b, ", %d ignored (accepted in the ignore list)", n)
	}
	if r.Failed() {
		fmt.Fprintf(&b, ": FAIL (fail-on %s)\n", r.FailOn)
	} else {
		fmt.Fprintf(&b, ": PASS (fail-on %s)\n", r.FailOn)
	}
	for _, e := range r.UnusedIgnores {
		fmt.Fprintf(&b, "ignore entry matched nothing (remove it): %s %s %s\n", e.Check, printable(e.Tool), printable(e.Path))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Perfect reports whether every rule that was checked scores 100%. It is
// true exactly when the report has no error or warning.
func (r *Report) Perfect() bool {
	return len(r.AtLeast(Warning)) == 0
}

// toolOrder lists the server's findings first, then every listed tool,
// then tools only findings name (a baseline tool no longer listed).
func (r *Report) toolOrder(byTool map[string][]Finding) []string {
	var order []string
	seen := map[string]bool{}
	if _, ok := byTool[""]; ok {
		order, seen[""] = append(order, ""), true
	}
	for _, t := range r.Tools {
		if !seen[t] {
			order, seen[t] = append(order, t), true
		}
	}
	var extra []string
	for t := range byTool {
		if !seen[t] {
			extra = append(extra, t)
		}
	}
	sort.Strings(extra)
	return append(order, extra...)
}

// writeFinding writes one finding of the text report.
func writeFinding(b *strings.Builder, f Finding) {
	fmt.Fprintf(b, "  %-7s %s", f.Severity, f.Check)
	if f.Path != "" {
		fmt.Fprintf(b, " at %s", printable(f.Path))
	}
	fmt.Fprintf(b, "\n          %s\n", printable(f.Message))
	for _, d := range f.Diff {
		fmt.Fprintf(b, "            %s\n", printable(d))
	}
	if f.Fix != "" {
		fmt.Fprintf(b, "          fix: %s\n", printable(f.Fix))
	}
}

func (r *Report) omittedTotal() int {
	n := 0
	for _, c := range r.Omitted {
		n += c
	}
	return n
}

// printable escapes what a terminal would act on rather than show: control
// characters (ANSI escape sequences start with one), format characters
// (bidirectional overrides, invisible Unicode tags), line and paragraph
// separators and invalid UTF-8. Server text reaches every report through
// it, so a tool name cannot rewrite what the report says.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (r != ' ' && !unicode.IsPrint(r)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}
