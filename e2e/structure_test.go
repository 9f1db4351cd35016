package e2e_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest function the repository keeps outside tests:
// a longer one wants splitting by concern (go-grpc-middleware's
// interceptors stay under 60 lines, chi's longest is 88).
const maxFuncLines = 80

// TestNoLongFunctions fails on any function or function literal over
// maxFuncLines lines in the repository's non-test Go files, every module
// included.
func TestNoLongFunctions(t *testing.T) {
	top, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	files := 0
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		found, err := longFunctions(p)
		if err != nil {
			return err
		}
		for _, f := range found {
			rel, _ := filepath.Rel(top, f)
			long = append(long, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found under %s", files, top)
	}
	for _, l := range long {
		t.Errorf("%s: over %d lines; split it by concern", l, maxFuncLines)
	}
}

func longFunctions(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		name := "a function literal"
		switch x := n.(type) {
		case *ast.FuncDecl:
			body, name = x.Body, x.Name.Name
		case *ast.FuncLit:
			body = x.Body
		}
		if body == nil {
			return true
		}
		start := fset.Position(n.Pos())
		if lines := fset.Position(body.End()).Line - start.Line + 1; lines > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines", path, start.Line, name, lines))
		}
		return true
	})
	return out, nil
}
