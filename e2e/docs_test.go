package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// The docs say what the code does: these tests read the documents a user
// reads first and check each claim that can be checked against the code.

// readDoc returns a file of the repository, relative to its root.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tableRows returns the cells of the Markdown table rows in doc that come
// after the line holding header, up to the first line that is no row.
func tableRows(t *testing.T, doc, header string) [][]string {
	t.Helper()
	_, after, ok := strings.Cut(doc, header)
	if !ok {
		t.Fatalf("no %q in the document", header)
	}
	var rows [][]string
	for _, line := range strings.Split(after, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestWireContractListsTheTextRules: every row of docs/wire-contract.md's
// table of text rules names a rule whose example ClassifyText reads as
// that rule, with the type and retryable the row gives, in the order the
// rows give.
func TestWireContractListsTheTextRules(t *testing.T) {
	t.Parallel()
	rows := tableRows(t, readDoc(t, "docs/wire-contract.md"), "| rule | `error_type` | retryable | next step | for example |")
	if len(rows) < 20 {
		t.Fatalf("the table has %d rules", len(rows))
	}
	code := regexp.MustCompile("`([a-z_]+)`")
	seen := map[string]bool{}
	for _, r := range rows {
		name, typ, retry, example := r[0], code.FindStringSubmatch(r[1])[1], r[2], strings.Trim(r[4], "`")
		if seen[name] {
			t.Errorf("rule %q listed twice", name)
		}
		seen[name] = true
		c, ok := envelope.ClassifyText(example)
		if c.Rule != name {
			t.Errorf("%q: rule %q, the table says %q", example, c.Rule, name)
		}
		if strings.HasPrefix(r[1], "stays") {
			if ok {
				t.Errorf("%q: classified as %s, the table says it stays execution_failed", example, c.Code)
			}
			continue
		}
		if string(c.Code) != typ || c.Retryable != (retry == "yes") {
			t.Errorf("%q: %s, retryable %v; the table says %s, %s", example, c.Code, c.Retryable, typ, retry)
		}
		if (c.NextStep == "") != (r[3] == "default") {
			t.Errorf("%q: next step %q; the table says %q", example, c.NextStep, r[3])
		}
	}
}
