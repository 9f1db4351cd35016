package e2e_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The mcp-go front's packages, whose names the go-sdk front repeats in its
// one package gosdk (limit's in gosdk/limit, qualified "limit.", and the
// harness middlewaretest's in gosdktest, qualified so).
var mcpGoFront = []string{"envelope", "hints", "middleware", "recover", "redact", "validate", "limit"}

// TestBothFrontsSpeakOneVocabulary fails when a name one front exports has
// no counterpart on the other: the same name (envelope.ErrNotFound is
// gosdk.ErrNotFound, limit.Rate is gosdk/limit's Rate), or a row of the
// table under "Names on both fronts" in gosdk's package documentation,
// which maps the names a package boundary keeps apart and lists, with a
// reason, those that only one front has. A row that names something no
// front exports fails too, so the table cannot go stale.
func TestBothFrontsSpeakOneVocabulary(t *testing.T) {
	t.Parallel()
	mcpGo := map[string]bool{}
	for _, pkg := range mcpGoFront {
		for _, n := range exported(t, filepath.Join("..", pkg)) {
			mcpGo[pkg+"."+n] = true
		}
	}
	goSDK := map[string]bool{}
	for _, n := range exported(t, filepath.Join("..", "gosdk")) {
		goSDK[n] = true
	}
	for _, n := range exported(t, filepath.Join("..", "gosdk", "limit")) {
		goSDK["limit."+n] = true
	}
	// The harnesses: middlewaretest.X is gosdktest.X.
	for _, n := range exported(t, filepath.Join("..", "middleware", "middlewaretest")) {
		mcpGo["middlewaretest."+n] = true
	}
	for _, n := range exported(t, filepath.Join("..", "gosdk", "gosdktest")) {
		goSDK["gosdktest."+n] = true
	}
	rows := vocabularyTable(t, filepath.Join("..", "gosdk", "doc.go"))
	mapped := map[string]bool{}
	for _, r := range rows {
		if r.mcpGo != "-" && !mcpGo[r.mcpGo] {
			t.Errorf("gosdk/doc.go's table names %s, which the mcp-go front does not export", r.mcpGo)
		}
		if r.goSDK != "-" && !goSDK[r.goSDK] {
			t.Errorf("gosdk/doc.go's table names gosdk.%s, which the go-sdk front does not export", r.goSDK)
		}
		mapped[r.mcpGo], mapped[r.goSDK] = true, true
	}
	var missing []string
	counterpart := map[string]bool{}
	for n := range mcpGo {
		g := goSDKName(n)
		counterpart[g] = true
		if !mapped[n] && !goSDK[g] {
			missing = append(missing, "mcp-go "+n+" has no gosdk."+g)
		}
	}
	for g := range goSDK {
		if !mapped[g] && !counterpart[g] {
			missing = append(missing, "gosdk."+g+" has no mcp-go counterpart")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m + ": export it on the other front under the same name, or add a row to the table in gosdk/doc.go with the reason")
	}
}

// goSDKName is the name the go-sdk front gives an mcp-go front's pkg.Name
// when a package boundary does not keep them apart.
func goSDKName(qualified string) string {
	pkg, name, _ := strings.Cut(qualified, ".")
	switch pkg {
	case "limit":
		return qualified
	case "middlewaretest":
		return "gosdktest." + name
	}
	return name
}

// exported lists the exported top-level names of the package in dir,
// tests excluded.
func exported(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			names = append(names, declNames(d)...)
		}
	}
	return names
}

func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.IsExported() {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

type vocabularyRow struct{ mcpGo, goSDK, why string }

// vocabularyTable reads the preformatted table that follows the heading
// "# Names on both fronts" in a doc.go: lines of three columns, separated
// by two spaces or more, after a header line.
func vocabularyTable(t *testing.T, path string) []vocabularyRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []vocabularyRow
	in, header := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "// # Names on both fronts":
			in = true
		case in && strings.HasPrefix(line, "// #"):
			in = false
		case in && strings.HasPrefix(line, "//\t"):
			cols := splitColumns(strings.TrimPrefix(line, "//\t"))
			if len(cols) != 3 {
				t.Fatalf("%s: a row of the names table needs three columns: %q", path, line)
			}
			if !header {
				header = true
				continue
			}
			rows = append(rows, vocabularyRow{cols[0], cols[1], cols[2]})
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no table under # Names on both fronts", path)
	}
	return rows
}

// splitColumns splits s at runs of two spaces or more.
func splitColumns(s string) []string {
	var cols []string
	for _, c := range strings.Split(s, "  ") {
		if c = strings.TrimSpace(c); c != "" {
			cols = append(cols, c)
		}
	}
	return cols
}
