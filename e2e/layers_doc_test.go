package e2e_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// Each front's layer order and options are written in five places: the
// code, the doc comment of Default or Middleware, the package doc's
// diagram, the front's page in docs/ and docs/architecture.md. These
// tests hold the four texts to the code (mcp-go) or to each other
// (go-sdk, whose Middleware is one function, not a list of layers a test
// can name), and each front's options table to the options the package
// exports.

// mcpgoLayers names each layer middleware.Default builds by the function
// that builds it: runtime.FuncForPC of a layer is a closure of that
// function (github.com/mcpguard/mcpguard/middleware.Logging.func1, or,
// inlined, middleware.answerLayers.(*Renderer).Layer.func4). The one
// core/chain layer of Default runs four stages, in core/chain's order
// (which core/chain holds to core/pipeline's), and the gates of admission
// before the first layer of the user's: with every option on, as the test
// builds it, pins, seal and hints (the limit given WithLimits is such a
// layer). It stands for their seven names. The declared check, behind
// that layer, is then a layer of its own (envelope.Gate).
var mcpgoLayers = []struct{ name, builtBy string }{
	{"Logging", "middleware.Logging."},
	{"recover, repeats, redact, envelope, pins, seal, hints", "answerLayers.(*Renderer).Layer."},
	{"limits", "limit.Rate."}, // the one limit the test passes WithLimits
	{"declared", "Default.Gate."},
}

// TestMCPGoLayerOrderIsDocumented: the layers middleware.Default builds,
// every optional one switched on, in the order the code builds them, are
// the layers Default's doc comment, the package doc's diagram,
// docs/mcp-go.md's diagram and docs/architecture.md's mcp-go chain list,
// in that order.
func TestMCPGoLayerOrderIsDocumented(t *testing.T) {
	t.Parallel()
	var code []string
	for _, l := range middleware.Default(middleware.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		middleware.WithLimits(limit.Rate(1, 1)), middleware.WithPins(layerDocPins(t)), middleware.WithHints(hints.For("a_tool", hints.OnError(envelope.NotFound, hints.Text("Look."))))) {
		fn := runtime.FuncForPC(reflect.ValueOf(l).Pointer()).Name()
		i := slices.IndexFunc(mcpgoLayers, func(n struct{ name, builtBy string }) bool { return strings.Contains(fn, n.builtBy) })
		if i < 0 {
			t.Fatalf("middleware.Default builds a layer by %s, which no entry of mcpgoLayers in e2e/layers_doc_test.go names: "+
				"add it there, and to the order in Default's doc comment (middleware/default.go), the diagram of middleware/doc.go, "+
				"the diagram of docs/mcp-go.md and the mcp-go chain of docs/architecture.md", fn)
		}
		code = append(code, strings.Split(mcpgoLayers[i].name, ", ")...)
	}
	where := "middleware.Default builds (outermost first)"
	for _, doc := range []struct{ where, text string }{
		{"the order in Default's doc comment (middleware/default.go)", docComment(t, "middleware/default.go", "Default")},
		{"the diagram of middleware/doc.go", readDoc(t, "middleware/doc.go")},
		{"the diagram of docs/mcp-go.md", readDoc(t, "docs/mcp-go.md")},
		{"the mcp-go chain of docs/architecture.md", readDoc(t, "docs/architecture.md")},
	} {
		var got []string
		if strings.HasSuffix(doc.where, "doc comment (middleware/default.go)") {
			got = listedLayers(t, doc.text, "The order is:")
		} else {
			got = diagramLayers(t, doc.text, "─▶")
		}
		if !slices.Equal(got, code) {
			t.Errorf("%s is %v; %s %v: update %s", doc.where, got, where, code, doc.where)
		}
	}
}

// TestGoSDKLayerOrderIsDocumented: the steps gosdk.Middleware's doc
// comment lists are the package doc's chain, docs/gosdk.md's and
// docs/architecture.md's go-sdk chain, in the same order. The code's
// order is held by the behaviour tests of each step (gosdk's pipeline,
// repeats, seal and limits tests).
func TestGoSDKLayerOrderIsDocumented(t *testing.T) {
	t.Parallel()
	comment := listedLayers(t, docComment(t, "gosdk/middleware.go", "Middleware"), "For tools/call, outermost first:")
	if len(comment) < 8 {
		t.Fatalf("gosdk.Middleware's doc comment lists %v", comment)
	}
	for _, doc := range []struct{ where, text string }{
		{"the chain in gosdk/doc.go", readDoc(t, "gosdk/doc.go")},
		{"the diagram of docs/gosdk.md", readDoc(t, "docs/gosdk.md")},
		{"the go-sdk chain of docs/architecture.md", readDoc(t, "docs/architecture.md")},
	} {
		if got := diagramLayers(t, doc.text, "→"); !slices.Equal(got, comment) {
			t.Errorf("%s is %v; gosdk.Middleware's doc comment (gosdk/middleware.go) lists %v: update whichever is wrong", doc.where, got, comment)
		}
	}
}

// TestEachFrontsOptionsAreDocumented: the options table of docs/mcp-go.md
// names every Option package middleware exports, and that of
// docs/gosdk.md every Option package gosdk exports, and nothing else.
func TestEachFrontsOptionsAreDocumented(t *testing.T) {
	t.Parallel()
	for _, front := range []struct{ pkg, dir, doc string }{
		{"middleware", "middleware", "docs/mcp-go.md"},
		{"gosdk", "gosdk", "docs/gosdk.md"},
	} {
		code := optionFuncs(t, front.dir)
		var documented []string
		for _, row := range tableRows(t, readDoc(t, front.doc), "| option | what it sets |") {
			for _, m := range regexp.MustCompile("`"+front.pkg+`\.(With\w*)\(`).FindAllStringSubmatch(row[0], -1) {
				documented = append(documented, m[1])
			}
		}
		slices.Sort(documented)
		documented = slices.Compact(documented)
		for _, name := range code {
			if !slices.Contains(documented, name) {
				t.Errorf("%s.%s is an Option of the %s front that the options table of %s does not name: add a row", front.pkg, name, front.pkg, front.doc)
			}
		}
		for _, name := range documented {
			if !slices.Contains(code, name) {
				t.Errorf("the options table of %s names %s.%s, which package %s does not export as an Option: remove or rename the row", front.doc, front.pkg, name, front.pkg)
			}
		}
	}
}

// layerDocPins are pins of an empty lock, to switch the pins layer on.
func layerDocPins(t *testing.T) *pin.Pins {
	t.Helper()
	lock, err := pin.NewLock("layers", nil)
	if err != nil {
		t.Fatal(err)
	}
	return pin.New(lock, nil)
}

// docComment returns the doc comment of the function name in file.
func docComment(t *testing.T, file, name string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", file), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name && fn.Doc != nil {
			return fn.Doc.Text()
		}
	}
	t.Fatalf("%s: no documented func %s", file, name)
	return ""
}

// listedLayers reads the indented list after the line intro in a doc
// comment: the first word of each line indented by one tab, up to the
// first line that is not indented.
func listedLayers(t *testing.T, comment, intro string) []string {
	t.Helper()
	_, after, ok := strings.Cut(comment, intro+"\n")
	if !ok {
		t.Fatalf("no line %q in the doc comment:\n%s", intro, comment)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "\t") {
			break
		}
		if f := strings.Fields(line); line[1] != ' ' && len(f) > 0 && f[0] != "…" {
			names = append(names, f[0])
		}
	}
	return names
}

// diagramLayers reads the first line of text that starts with "request"
// and draws the chain with arrow: the names between the arrows, without
// the request, the handler, what is not the front's (otel, go-sdk, the
// middleware added before) and bracketed placeholders ([your layers]).
func diagramLayers(t *testing.T, text, arrow string) []string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, "/\t ")
		if !strings.HasPrefix(line, "request") || !strings.Contains(line, arrow) {
			continue
		}
		var names []string
		for _, part := range strings.Split(line, arrow) {
			name := strings.Trim(strings.TrimSpace(part), "─-")
			name = strings.TrimSpace(name)
			switch {
			case name == "request" || name == "handler" || name == "otel" || name == "go-sdk",
				strings.HasPrefix(name, "["), strings.HasPrefix(name, "middleware added"):
				continue
			}
			names = append(names, name)
		}
		return names
	}
	t.Fatalf("no line starting with \"request\" and drawn with %q", arrow)
	return nil
}

// optionFuncs returns the exported functions of the package in dir that
// return its Option type.
func optionFuncs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
				names = append(names, fn.Name.Name)
			}
		}
	}
	slices.Sort(names)
	if len(names) < 5 {
		t.Fatalf("%s exports %d Options: %v", dir, len(names), names)
	}
	return names
}

// TestProxyFlagsAreDocumented: the flag table of docs/proxy.md names
// every flag cmd/mcpguard-proxy defines, and no other.
func TestProxyFlagsAreDocumented(t *testing.T) {
	t.Parallel()
	var code []string
	for _, m := range regexp.MustCompile(`fs\.\w+Var\(&[\w.]+, "([\w-]+)"`).FindAllStringSubmatch(readDoc(t, "cmd/mcpguard-proxy/main.go"), -1) {
		code = append(code, m[1])
	}
	if len(code) < 10 {
		t.Fatalf("cmd/mcpguard-proxy/main.go defines the flags %v", code)
	}
	var documented []string
	for _, row := range tableRows(t, readDoc(t, "docs/proxy.md"), "| flag | meaning |") {
		for _, m := range regexp.MustCompile("`--([\\w-]+)").FindAllStringSubmatch(row[0], -1) {
			documented = append(documented, m[1])
		}
	}
	for _, f := range code {
		if !slices.Contains(documented, f) {
			t.Errorf("mcpguard-proxy has the flag --%s, which the flag table of docs/proxy.md does not name: add a row", f)
		}
	}
	for _, f := range documented {
		if !slices.Contains(code, f) {
			t.Errorf("the flag table of docs/proxy.md names --%s, which cmd/mcpguard-proxy/main.go does not define", f)
		}
	}
}

// TestFrontsFollowTheCoreOrder: the layers middleware.Default builds and
// the steps gosdk.Middleware's doc comment lists (held to its code by the
// behaviour tests) come in core/pipeline's one order of stages, each front
// naming a stage as its docs do (Logging or log, envelope for render);
// go-sdk's encode and unknown belong to no stage: steps only go-sdk needs,
// which encodes a result after every middleware and looks a tool up
// after them (mcp-go looks it up before its middleware).
func TestFrontsFollowTheCoreOrder(t *testing.T) {
	t.Parallel()
	alias := map[string]string{"Logging": "log", "envelope": "render", "encode": "", "unknown": ""}
	stageOf := func(name string) string {
		if a, ok := alias[name]; ok {
			return a
		}
		return name
	}
	var core []string
	for _, s := range pipeline.Order() {
		core = append(core, s.String())
	}
	var mcpgo []string
	for _, l := range mcpgoLayers {
		mcpgo = append(mcpgo, strings.Split(l.name, ", ")...)
	}
	gosdk := listedLayers(t, docComment(t, "gosdk/middleware.go", "Middleware"), "For tools/call, outermost first:")
	for front, layers := range map[string][]string{"middleware.Default": mcpgo, "gosdk.Middleware": gosdk} {
		var got []string
		for _, l := range layers {
			if s := stageOf(l); s != "" {
				got = append(got, s)
			}
		}
		if !slices.Equal(got, core) {
			t.Errorf("%s's layers %v are the stages %v; core/pipeline's order is %v", front, layers, got, core)
		}
	}
}
