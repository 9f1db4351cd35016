package reexport

import (
	"bytes"
	"fmt"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// Vocabulary is what a package says in core's terms.
type Vocabulary struct {
	// Consts maps each exported constant to its value.
	Consts map[string]string
	// Sentinels are the exported variables of type error.
	Sentinels []string
	// Decorators are the exported functions that take an error first and
	// return one error (AddNextSteps, Internal, …).
	Decorators []string
}

// Load type-checks nothing: it compiles paths with the go command and
// reads their export data. It returns each package by its path.
func Load(paths ...string) (map[string]*types.Package, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "\t")
		exports[path] = file
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	pkgs := map[string]*types.Package{}
	for _, p := range paths {
		pkg, err := imp.Import(p)
		if err != nil {
			return nil, err
		}
		pkgs[p] = pkg
	}
	return pkgs, nil
}

// Of returns the vocabulary of pkg.
func Of(pkg *types.Package) Vocabulary {
	v := Vocabulary{Consts: map[string]string{}}
	errType := types.Universe.Lookup("error").Type()
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			v.Consts[name] = obj.Val().ExactString()
			if obj.Val().Kind() == constant.String {
				v.Consts[name] = constant.StringVal(obj.Val())
			}
		case *types.Var:
			if types.Identical(obj.Type(), errType) {
				v.Sentinels = append(v.Sentinels, name)
			}
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			if sig.Params().Len() > 0 && types.Identical(sig.Params().At(0).Type(), errType) &&
				sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), errType) {
				v.Decorators = append(v.Decorators, name)
			}
		}
	}
	return v
}

// Compare lists how front departs from core: every constant, sentinel
// and decorator of core must be the front's too (constants with the same
// value); and the front may have no sentinel or decorator core lacks, nor
// a constant of one of core's types (a code) that core lacks. except names
// front exports that core rightly lacks (a front's own sentinel), with why.
func Compare(core, front *types.Package, except map[string]string) []string {
	c, f := Of(core), Of(front)
	var out []string
	for name, val := range c.Consts {
		if got, ok := f.Consts[name]; !ok {
			out = append(out, fmt.Sprintf("%s.%s (= %s) is not re-exported", core.Name(), name, val))
		} else if got != val {
			out = append(out, fmt.Sprintf("%s.%s is %s, core's is %s", front.Name(), name, got, val))
		}
	}
	for _, name := range front.Scope().Names() {
		obj, ok := front.Scope().Lookup(name).(*types.Const)
		if !ok || !obj.Exported() || except[name] != "" {
			continue
		}
		if named, ok := obj.Type().(*types.Named); ok && named.Obj().Pkg() == core {
			if _, ok := c.Consts[name]; !ok {
				out = append(out, fmt.Sprintf("%s.%s is a %s that core does not have", front.Name(), name, named.Obj().Name()))
			}
		}
	}
	out = append(out, missing(core, front, "sentinel", c.Sentinels, f.Sentinels, except)...)
	out = append(out, missing(core, front, "decorator", c.Decorators, f.Decorators, except)...)
	sort.Strings(out)
	return out
}

func missing(core, front *types.Package, kind string, want, got []string, except map[string]string) []string {
	var out []string
	for _, name := range want {
		if !slices.Contains(got, name) {
			out = append(out, fmt.Sprintf("core's %s %s.%s is not re-exported", kind, core.Name(), name))
		}
	}
	for _, name := range got {
		if !slices.Contains(want, name) && except[name] == "" {
			out = append(out, fmt.Sprintf("%s.%s is a %s that core does not have", front.Name(), name, kind))
		}
	}
	return out
}
