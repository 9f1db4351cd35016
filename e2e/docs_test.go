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

// modules returns the directory of every module of the repository ("."
// for the root), as scripts/release finds them, and each one's go.mod.
func modules(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			dir, _ := filepath.Rel("..", filepath.Dir(path))
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(dir)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found %d modules", len(out))
	}
	return out
}

var goDirective = regexp.MustCompile(`(?m)^go (\S+)$`)

// TestREADMEGoVersionIsEveryModules: the Go version the README names is
// the go directive of go.work (which its commands run under, in a clone)
// and of every module (which users' go get reads), so the README's
// commands run with the Go it names and no module asks for more.
func TestREADMEGoVersionIsEveryModules(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "README.md")
	need := regexp.MustCompile(`You need Go (\d+\.\d+\.\d+)\+`).FindStringSubmatch(readme)
	support := regexp.MustCompile(`\*\*Go:\*\* (\d+\.\d+\.\d+) or newer`).FindStringSubmatch(readme)
	if need == nil || support == nil {
		t.Fatal("the README names no Go version in \"Try it\" or \"Versioning and support\"")
	}
	if need[1] != support[1] {
		t.Errorf("the README names Go %s in \"Try it\" and %s in \"Versioning and support\"", need[1], support[1])
	}
	files := modules(t)
	files["go.work"] = readDoc(t, "go.work")
	for name, text := range files {
		m := goDirective.FindStringSubmatch(text)
		if m == nil || m[1] != need[1] {
			t.Errorf("%s: go directive %v, the README says Go %s", name, m, need[1])
		}
		if strings.Contains(text, "\ntoolchain ") {
			t.Errorf("%s has a toolchain directive: the README's Go would download another", name)
		}
	}
}

// TestREADMETagsEveryModule: the README's tag list names the tag of every
// module users require, and the modules it says users do not require.
func TestREADMETagsEveryModule(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "README.md")
	_, line, ok := strings.Cut(readme, "- **Modules:**")
	if !ok {
		t.Fatal("no **Modules:** item in the README")
	}
	line, _, _ = strings.Cut(line, "\n")
	_, notRequired, ok := strings.Cut(line, "the modules users do not require")
	if !ok {
		t.Fatalf("the tag list does not name the modules users do not require: %s", line)
	}
	tags := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:[a-z0-9/-]+/)?)vX\\.Y\\.Z`").FindAllStringSubmatch(line, -1) {
		tags[m[1]] = true
	}
	for dir := range modules(t) {
		tag := dir + "/"
		if dir == "." {
			tag = ""
		}
		inList := tags[tag]
		named := strings.Contains(notRequired, "`"+dir+"`")
		if inList == named {
			t.Errorf("module %s: in the tag list %v, named as not required %v; want exactly one", dir, inList, named)
		}
		delete(tags, tag)
	}
	for tag := range tags {
		t.Errorf("the README lists %svX.Y.Z, which is no module", tag)
	}
}

// TestReleasingSaysWhatTheScriptDoes: docs/releasing.md's push command is
// the one scripts/release prints, its list of library modules is the
// script's (every module its no_api pattern leaves), and the modules it
// says have no replace directives are those that have none.
func TestReleasingSaysWhatTheScriptDoes(t *testing.T) {
	t.Parallel()
	doc := readDoc(t, "docs/releasing.md")
	script := readDoc(t, "scripts/release")
	push := regexp.MustCompile(`to publish: (git push [^"]+)"`).FindStringSubmatch(script)
	if push == nil {
		t.Fatal("scripts/release prints no push command")
	}
	if !strings.Contains(doc, push[1]+" ") {
		t.Errorf("docs/releasing.md does not give the push command the script prints: %q", push[1])
	}
	noAPI := regexp.MustCompile(`no_api='([^']+)'`).FindStringSubmatch(script)
	if noAPI == nil {
		t.Fatal("no no_api pattern in scripts/release")
	}
	skip := regexp.MustCompile(noAPI[1])
	_, apiList, _ := strings.Cut(doc, "**Compares the API** of each library module (")
	apiList, _, _ = strings.Cut(apiList, ":")
	mods := modules(t)
	for dir, gomod := range mods {
		listed := strings.Contains(apiList, "`"+dir+"`") || dir == "." && strings.Contains(apiList, "the root")
		if library := !skip.MatchString(dir); listed != library {
			t.Errorf("module %s: a library module to the script %v, in the docs' list %v", dir, library, listed)
		}
		noReplace := !regexp.MustCompile(`(?m)^replace|^\s*github.com/mcpguard/mcpguard\S* =>`).MatchString(gomod)
		_, tidied, _ := strings.Cut(doc, "the modules with no `replace` directives")
		tidied, _, _ = strings.Cut(tidied, "Every module")
		if said := strings.Contains(tidied, "`"+dir+"`"); said != noReplace {
			t.Errorf("module %s: no replace directives %v, named so in docs/releasing.md %v", dir, noReplace, said)
		}
	}
}
