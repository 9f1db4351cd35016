package audit

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report for a pull-request comment: the score
// table, the totals, then the findings grouped by tool, each group in a
// collapsible section. Server text is escaped so that it renders as text:
// a tool name cannot add links, images or HTML to the comment.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	name := r.Server
	if name == "" {
		name = "server"
	}
	verdict := "PASS"
	if r.Failed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "## mcpguard-audit: %s: %s\n\n", mdText(name), verdict)
	fmt.Fprintf(&b, "%d tool(s), %s.", len(r.Tools), r.Summary())
	if !r.Probed {
		b.WriteString(" Rule D not probed.")
	}
	b.WriteString("\n\n")
	if r.Incomplete != "" {
		fmt.Fprintf(&b, "> **Incomplete:** %s\n\n", mdText(r.Incomplete))
	}
	b.WriteString("| Rule | Score | Passed |\n|---|---:|---:|\n")
	for _, rule := range Rules() {
		if sc := r.Scores.Rule(rule); sc != nil {
			fmt.Fprintf(&b, "| %s %s | %s | %d/%d |\n", rule, rule.Title(), percent(sc.Percent), sc.Passed, sc.Checked)
		}
	}
	fmt.Fprintf(&b, "| **overall** | **%s** | |\n\n", percent(r.Scores.Overall))
	fmt.Fprintf(&b, "**%d error(s), %d warning(s), %d info(s)** (fail-on %s)", r.Count(Error), r.Count(Warning), r.Count(Info), r.FailOn)
	if n := r.omittedTotal(); n > 0 {
		fmt.Fprintf(&b, ", %d more not listed", n)
	}
	if len(r.Ignored) > 0 {
		fmt.Fprintf(&b, ", %d ignored", len(r.Ignored))
	}
	b.WriteString("\n")

	for _, group := range groupByTool(r.Findings) {
		title := "(server)"
		if group.tool != "" {
			title = mdText(group.tool)
		}
		fmt.Fprintf(&b, "\n<details><summary><b>%s</b>: %s</summary>\n\n", title, countText(group.findings))
		b.WriteString("| Severity | Check | Where | Finding | Fix |\n|---|---|---|---|---|\n")
		for _, f := range group.findings {
			msg := mdText(f.Message)
			for _, d := range f.Diff {
				msg += "<br>" + mdText(d)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Severity, f.Check, mdText(f.Path), msg, mdText(f.Fix))
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Ignored) > 0 {
		b.WriteString("\n<details><summary>Ignored findings</summary>\n\n| Check | Tool | Where | Reason |\n|---|---|---|---|\n")
		for _, ig := range r.Ignored {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", ig.Check, mdText(ig.Tool), mdText(ig.Path), mdText(ig.Reason))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type toolGroup struct {
	tool     string
	findings []Finding
}

// groupByTool groups sorted findings by tool, server-level ones first.
func groupByTool(fs []Finding) []toolGroup {
	var out []toolGroup
	var server []Finding
	for _, f := range fs {
		if f.Tool == "" {
			server = append(server, f)
			continue
		}
		if n := len(out); n > 0 && out[n-1].tool == f.Tool {
			out[n-1].findings = append(out[n-1].findings, f)
			continue
		}
		out = append(out, toolGroup{tool: f.Tool, findings: []Finding{f}})
	}
	if len(server) > 0 {
		out = append([]toolGroup{{findings: server}}, out...)
	}
	return out
}

func countText(fs []Finding) string {
	var e, w, i int
	for _, f := range fs {
		switch f.Severity {
		case Error:
			e++
		case Warning:
			w++
		default:
			i++
		}
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{e, "error"}, {w, "warning"}, {i, "info"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s(s)", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// mdText renders server text as plain text in Markdown and inline HTML:
// terminal controls escaped as in the text report, HTML's special
// characters as entities, and the Markdown punctuation that can start
// emphasis, code, a link, an autolink or a table cell backslash-escaped.
func mdText(s string) string {
	s = printable(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', ':': // emphasis, code, links, cells, autolinks
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
