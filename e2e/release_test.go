package e2e_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRelease cuts a release with scripts/release in a scratch clone of
// this repository's committed HEAD, serves that clone as the git remote of
// github.com/mcpguard/mcpguard (git's url.<base>.insteadOf: no network),
// and uses it from scratch modules outside the repository the way users
// do: go get each front and build a server on it, go install the audit
// command at the version, check both module graphs, and run the GitHub
// Action's own install line and audit step. It also checks what the
// script refuses: a dirty tree, a version that is not greater, and a
// patch release whose API is incompatible with the last one. It takes
// minutes, so it is a step of .ci/run of its own, not part of the
// README's test command: MCPGUARD_RELEASE=1 runs it.
func TestRelease(t *testing.T) {
	if os.Getenv("MCPGUARD_RELEASE") == "" {
		t.Skip("MCPGUARD_RELEASE=1 runs the release test, which builds every module as a user would (.ci/run's release step)")
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the release test needs %s: %v", tool, err)
		}
	}
	top, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	run(t, nil, "", "git", "clone", "-q", "--no-local", top, repo)
	// The release test makes commits of its own in its clone.
	gitIdentity := []string{"GIT_AUTHOR_NAME=release test", "GIT_AUTHOR_EMAIL=test@mcpguard.invalid",
		"GIT_COMMITTER_NAME=release test", "GIT_COMMITTER_EMAIL=test@mcpguard.invalid"}

	// A public function the first release has and the next removes: an
	// incompatible change for apidiff to find.
	probe := filepath.Join(repo, "core", "envelope", "zz_release_probe.go")
	writeFile(t, probe, "package envelope\n\n// ReleaseProbe exists only in the release test's clone.\nfunc ReleaseProbe() {}\n")
	run(t, gitIdentity, repo, "git", "add", "-A")
	run(t, gitIdentity, repo, "git", "commit", "-q", "-m", "release test: a probe function")

	ver := nextVersion(t, repo)
	t.Logf("releasing %s", ver)

	t.Run("refuses a dirty tree", func(t *testing.T) {
		dirt := filepath.Join(repo, "dirt.txt")
		writeFile(t, dirt, "uncommitted")
		defer os.Remove(dirt)
		out, code := release(t, gitIdentity, repo, ver)
		if code == 0 || !strings.Contains(out, "not clean") {
			t.Fatalf("scripts/release on a dirty tree: exit %d\n%s", code, out)
		}
	})

	out, code := release(t, gitIdentity, repo, ver)
	if code != 0 {
		t.Fatalf("scripts/release %s: exit %d\n%s", ver, code, out)
	}
	checkTags(t, repo, ver)
	checkReleaseCommit(t, repo, ver)

	t.Run("refuses a version that is not greater", func(t *testing.T) {
		out, code := release(t, gitIdentity, repo, ver)
		if code == 0 || !strings.Contains(out, "not greater") {
			t.Fatalf("scripts/release %s again: exit %d\n%s", ver, code, out)
		}
	})

	user := newUser(t, tmp, repo)
	t.Run("mcp-go front", func(t *testing.T) { mcpGoConsumer(t, user, ver) })
	t.Run("go-sdk front", func(t *testing.T) { goSDKConsumer(t, user, ver) })
	t.Run("otel", func(t *testing.T) { otelConsumer(t, user, ver) })
	t.Run("go install mcpguard-audit", func(t *testing.T) {
		bin := user.install(t, "github.com/mcpguard/mcpguard/cmd/mcpguard-audit@"+ver)
		got := run(t, user.env, "", bin, "--version")
		t.Logf("$ mcpguard-audit --version\n%s", got)
		if got != "mcpguard-audit "+ver+"\n" {
			t.Fatalf("mcpguard-audit --version printed %q, want the released version %s", got, ver)
		}
	})
	t.Run("go install mcpguard-proxy", func(t *testing.T) {
		bin := user.install(t, "github.com/mcpguard/mcpguard/cmd/mcpguard-proxy@"+ver)
		if got := run(t, user.env, "", bin, "--version"); got != "mcpguard-proxy "+ver+"\n" {
			t.Fatalf("mcpguard-proxy --version printed %q, want the released version %s", got, ver)
		}
	})
	t.Run("GitHub Action", func(t *testing.T) { action(t, user, top, ver) })

	t.Run("refuses an incompatible patch release", func(t *testing.T) {
		run(t, gitIdentity, repo, "git", "rm", "-q", probe)
		run(t, gitIdentity, repo, "git", "commit", "-q", "-m", "release test: remove the probe function")
		patch := bump(ver, 2)
		out, code := release(t, gitIdentity, repo, patch)
		if code == 0 || !strings.Contains(out, "incompatible") || !strings.Contains(out, "ReleaseProbe") {
			t.Fatalf("scripts/release %s after removing a public function: exit %d\n%s", patch, code, out)
		}
		if !strings.Contains(out, "release it as "+bump(ver, 1)) {
			t.Errorf("the refusal does not name the minor version to release instead:\n%s", out)
		}
	})
}

// release runs scripts/release in repo.
func release(t *testing.T, env []string, repo, ver string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(repo, "scripts", "release"), ver)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// nextVersion is v0.1.0 for a repository never released, else the patch
// after its last release.
func nextVersion(t *testing.T, repo string) string {
	tags := strings.Fields(run(t, nil, repo, "git", "tag", "-l", "v*"))
	semver := regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	var last string
	for _, tag := range tags {
		if semver.MatchString(tag) && (last == "" || less(last, tag)) {
			last = tag
		}
	}
	if last == "" {
		return "v0.1.0"
	}
	return bump(last, 2)
}

func parts(v string) [3]int {
	var p [3]int
	for i, s := range strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3) {
		p[i], _ = strconv.Atoi(s)
	}
	return p
}

func less(a, b string) bool {
	pa, pb := parts(a), parts(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

// bump increments part i (0 major, 1 minor, 2 patch) and zeroes the rest.
func bump(v string, i int) string {
	p := parts(v)
	p[i]++
	for j := i + 1; j < 3; j++ {
		p[j] = 0
	}
	return "v" + strconv.Itoa(p[0]) + "." + strconv.Itoa(p[1]) + "." + strconv.Itoa(p[2])
}

// checkTags: every module of the repository is tagged at ver, on HEAD.
func checkTags(t *testing.T, repo, ver string) {
	t.Helper()
	head := strings.TrimSpace(run(t, nil, repo, "git", "rev-parse", "HEAD"))
	mods := strings.Fields(run(t, nil, repo, "git", "ls-files", "*go.mod"))
	if len(mods) < 5 {
		t.Fatalf("only %d modules: %v", len(mods), mods)
	}
	for _, m := range mods {
		if strings.Contains(m, "testdata/") || strings.Contains(m, "node_modules/") {
			continue
		}
		tag := ver
		if d := filepath.Dir(m); d != "." {
			tag = filepath.ToSlash(d) + "/" + ver
		}
		if got := strings.TrimSpace(run(t, nil, repo, "git", "rev-list", "-n", "1", tag)); got != head {
			t.Errorf("tag %s is at %s, want HEAD %s", tag, got, head)
		}
	}
}

// checkReleaseCommit: requirements between modules are at ver, the module
// of the command has no replace directives, and the CHANGELOG has the
// version's section.
func checkReleaseCommit(t *testing.T, repo, ver string) {
	t.Helper()
	for _, m := range []string{"go.mod", "gosdk/go.mod", "otel/go.mod", "cmd/mcpguard-audit/go.mod", "cmd/mcpguard-proxy/go.mod"} {
		b := readFile(t, filepath.Join(repo, m))
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
			if len(f) >= 2 && strings.HasPrefix(f[0], "github.com/mcpguard/mcpguard") && strings.HasPrefix(f[1], "v") && f[1] != ver {
				t.Errorf("%s requires %s %s, want %s", m, f[0], f[1], ver)
			}
		}
	}
	for _, m := range []string{"cmd/mcpguard-audit/go.mod", "cmd/mcpguard-proxy/go.mod"} {
		if b := readFile(t, filepath.Join(repo, m)); bytes.Contains(b, []byte("replace")) {
			t.Errorf("%s has replace directives, which break go install …@version:\n%s", m, b)
		}
	}
	if b := readFile(t, filepath.Join(repo, "CHANGELOG.md")); !regexp.MustCompile(`(?m)^## ` + regexp.QuoteMeta(ver) + ` \(\d{4}-\d\d-\d\d\)$`).Match(b) {
		t.Errorf("CHANGELOG.md has no section for %s:\n%s", ver, b)
	}
}

// A user: no workspace, an empty module cache of their own (third-party
// modules come from this machine's cache, else the proxy), and the
// repository's URL served by the released clone.
type userEnv struct {
	env   []string
	home  string
	gobin string
}

func newUser(t *testing.T, tmp, repo string) *userEnv {
	t.Helper()
	cache := strings.TrimSpace(run(t, nil, "", "go", "env", "GOMODCACHE"))
	proxy := strings.TrimSpace(run(t, nil, "", "go", "env", "GOPROXY"))
	u := &userEnv{home: filepath.Join(tmp, "user"), gobin: filepath.Join(tmp, "user", "bin")}
	gitconfig := filepath.Join(u.home, "gitconfig")
	writeFile(t, gitconfig, "[url \""+repo+"\"]\n\tinsteadOf = https://github.com/mcpguard/mcpguard\n[protocol \"file\"]\n\tallow = always\n")
	u.env = []string{
		"GIT_CONFIG_GLOBAL=" + gitconfig, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GOWORK=off", "GOPRIVATE=github.com/mcpguard", "GOFLAGS=-modcacherw",
		"GOMODCACHE=" + filepath.Join(u.home, "modcache"), "GOBIN=" + u.gobin,
		"GOPROXY=file://" + filepath.ToSlash(cache) + "/cache/download," + proxy,
		"PATH=" + u.gobin + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	return u
}

// module makes a scratch module with the given main.go, go gets each
// requirement and builds it; it returns the module's directory and binary.
func (u *userEnv) module(t *testing.T, name, main string, get ...string) (dir, bin string) {
	t.Helper()
	dir = filepath.Join(u.home, name)
	writeFile(t, filepath.Join(dir, "main.go"), main)
	run(t, u.env, dir, "go", "mod", "init", "example.com/"+name)
	for _, g := range get {
		out := runCombined(t, u.env, dir, "go", "get", g)
		t.Logf("$ go get %s\n%s", g, out)
	}
	run(t, u.env, dir, "go", "mod", "tidy")
	bin = filepath.Join(dir, name)
	run(t, u.env, dir, "go", "build", "-o", bin, ".")
	return dir, bin
}

func (u *userEnv) install(t *testing.T, pkg string) string {
	t.Helper()
	out := runCombined(t, u.env, u.home, "go", "install", pkg)
	t.Logf("$ go install %s\n%s", pkg, out)
	return filepath.Join(u.gobin, filepath.Base(strings.Split(pkg, "@")[0]))
}

// graph is the consumer's module graph (go list -m all).
func graph(t *testing.T, u *userEnv, dir string) map[string]string {
	t.Helper()
	mods := map[string]string{}
	for _, line := range strings.Split(run(t, u.env, dir, "go", "list", "-m", "all"), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			mods[f[0]] = f[1]
		} else if len(f) == 1 {
			mods[f[0]] = ""
		}
	}
	return mods
}

const mcpGoServer = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

type getArgs struct {
	ID string ` + "`" + `json:"id" jsonschema:"The product's ID, from shop_search" validate:"required,startswith=p-,max=20"` + "`" + `
}

func newServer() *server.MCPServer {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(100, 10), limit.Timeout(5*time.Second)))...)
	s.AddTool(mcp.NewTool("shop_get_product",
		mcp.WithDescription("Get one product's full record: its name and price. Use it when the user asks about a product whose ID they know."),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(false),
		validate.InputSchema[getArgs]()),
		middleware.Wrap(validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a getArgs) (*mcp.CallToolResult, error) {
			if a.ID != "p-1" {
				return nil, fmt.Errorf("product %s: %w", a.ID, envelope.ErrNotFound)
			}
			return mcp.NewToolResultText("lamp"), nil
		}), hints.Middleware(hints.For("shop_get_product", hints.OnError(envelope.NotFound, hints.Text("Ask the user for the product's ID."))))))
	return s
}

func main() {
	s := newServer()
	if len(os.Args) > 1 && os.Args[1] == "call" {
		msg := ` + "`" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"id":"p-9"}}}` + "`" + `
		out, _ := json.Marshal(s.HandleMessage(context.Background(), []byte(msg)))
		fmt.Println(string(out))
		return
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`

func mcpGoConsumer(t *testing.T, u *userEnv, ver string) {
	dir, bin := u.module(t, "mcpgoshop", mcpGoServer, "github.com/mcpguard/mcpguard@"+ver)
	out := run(t, u.env, "", bin, "call")
	for _, want := range []string{`"isError":true`, `\"error_type\":\"not_found\"`, "Ask the user for the product's ID."} {
		if !strings.Contains(out, want) {
			t.Errorf("the released mcp-go front's answer lacks %s:\n%s", want, out)
		}
	}
	mods := graph(t, u, dir)
	if mods["github.com/mark3labs/mcp-go"] == "" {
		t.Errorf("the mcp-go consumer's graph has no mcp-go: %v", mods)
	}
	if _, ok := mods["github.com/modelcontextprotocol/go-sdk"]; ok {
		t.Errorf("the mcp-go consumer's module graph holds go-sdk")
	}
	for _, m := range []string{"github.com/mcpguard/mcpguard", "github.com/mcpguard/mcpguard/core", "github.com/mcpguard/mcpguard/internal"} {
		if mods[m] != ver {
			t.Errorf("%s is at %q in the mcp-go consumer's graph, want %s", m, mods[m], ver)
		}
	}
	if got := strings.TrimSpace(run(t, u.env, dir, "go", "list", "-m", "github.com/mcpguard/mcpguard/core")); got != "github.com/mcpguard/mcpguard/core "+ver {
		t.Errorf("go list -m github.com/mcpguard/mcpguard/core = %q, want the released version %s", got, ver)
	}
	for m := range mods {
		if strings.HasPrefix(m, "github.com/mcpguard/mcpguard/e2e") || strings.HasPrefix(m, "github.com/mcpguard/mcpguard/example") {
			t.Errorf("a library user's module graph holds the test-only module %s", m)
		}
	}
}

const goSDKServer = `package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

type getArgs struct {
	ID string ` + "`" + `json:"id" jsonschema:"The product's ID" validate:"required,startswith=p-,max=20"` + "`" + `
}

type product struct {
	ID   string ` + "`" + `json:"id"` + "`" + `
	Name string ` + "`" + `json:"name"` + "`" + `
}

func main() {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware())
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_get_product", Description: "Get one product by ID."},
		func(_ context.Context, _ *mcp.CallToolRequest, in getArgs) (*mcp.CallToolResult, product, error) {
			if in.ID != "p-1" {
				return nil, product{}, fmt.Errorf("product %s: %w", in.ID, gosdk.ErrNotFound)
			}
			return nil, product{ID: "p-1", Name: "Lamp"}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	for _, id := range []any{"p-9", 42} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_get_product", Arguments: map[string]any{"id": id}})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
}
`

func goSDKConsumer(t *testing.T, u *userEnv, ver string) {
	dir, bin := u.module(t, "gosdkshop", goSDKServer, "github.com/mcpguard/mcpguard/gosdk@"+ver)
	out := run(t, u.env, "", bin)
	for _, want := range []string{`true {"success":false,"error_type":"not_found"`, `true {"success":false,"error_type":"validation_error"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the released go-sdk front's answers lack %s:\n%s", want, out)
		}
	}
	mods := graph(t, u, dir)
	if mods["github.com/modelcontextprotocol/go-sdk"] == "" {
		t.Errorf("the go-sdk consumer's graph has no go-sdk: %v", mods)
	}
	var leaked []string
	for m := range mods {
		if m == "github.com/mark3labs/mcp-go" || m == "github.com/mcpguard/mcpguard" || strings.HasPrefix(m, "go.opentelemetry.io/") {
			leaked = append(leaked, m)
		}
	}
	sort.Strings(leaked)
	if len(leaked) > 0 {
		t.Errorf("the go-sdk consumer's module graph holds %v", leaked)
	}
	if mods["github.com/mcpguard/mcpguard/core"] != ver {
		t.Errorf("core is at %q in the go-sdk consumer's graph, want %s", mods["github.com/mcpguard/mcpguard/core"], ver)
	}
}

const otelServer = `package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/middleware"
	mcpotel "github.com/mcpguard/mcpguard/otel"
)

func main() {
	spans := tracetest.NewSpanRecorder()
	tp := trace.NewTracerProvider(trace.WithSpanProcessor(spans))
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(mcpotel.Middleware(mcpotel.WithTracerProvider(tp)))
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	out, _ := json.Marshal(s.HandleMessage(context.Background(), []byte(` + "`" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_fail"}}` + "`" + `)))
	fmt.Println(string(out))
	for _, sp := range spans.Ended() {
		for _, a := range sp.Attributes() {
			fmt.Println(sp.Name(), a.Key, a.Value.Emit())
		}
	}
}
`

func otelConsumer(t *testing.T, u *userEnv, ver string) {
	_, bin := u.module(t, "otelshop", otelServer, "github.com/mcpguard/mcpguard/otel@"+ver, "go.opentelemetry.io/otel/sdk")
	out := run(t, u.env, "", bin)
	for _, want := range []string{`\"error_type\":\"internal_error\"`, "tools/call shop_fail mcpguard.error_type internal_error", "tools/call shop_fail mcpguard.incident_id "} {
		if !strings.Contains(out, want) {
			t.Errorf("the released otel module's output lacks %q:\n%s", want, out)
		}
	}
}

// action runs the GitHub Action's two steps as action.yml writes them:
// its install line at the released version, then its audit step against
// the released mcp-go consumer, which scores full marks.
func action(t *testing.T, u *userEnv, top, ver string) {
	yml := string(readFile(t, filepath.Join(top, "action.yml")))
	m := regexp.MustCompile(`(?m)^\s+run: (go install .*)$`).FindStringSubmatch(yml)
	if m == nil {
		t.Fatalf("action.yml has no go install step:\n%s", yml)
	}
	env := append(append([]string{}, u.env...), "MCPGUARD_VERSION="+ver)
	run(t, env, u.home, "bash", "-c", m[1])
	bin := filepath.Join(u.gobin, "mcpguard-audit")
	if got := run(t, u.env, "", bin, "--version"); got != "mcpguard-audit "+ver+"\n" {
		t.Fatalf("the action installed %q, want %s", got, ver)
	}
	server := filepath.Join(u.home, "mcpgoshop", "mcpgoshop")
	dir := t.TempDir()
	outputs, sarif := filepath.Join(dir, "output"), filepath.Join(dir, "audit.sarif")
	out := run(t, append(env, "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary.md"),
		"INPUT_COMMAND="+server, "INPUT_PROBE=true", "INPUT_FAIL_ON=error", "INPUT_SARIF_FILE="+sarif, "INPUT_SARIF_URI=main.go"),
		u.home, "bash", filepath.Join(top, "scripts", "audit-action"))
	if got := string(readFile(t, outputs)); !strings.Contains(got, "exit-code=0\n") {
		t.Errorf("the action's audit step: outputs %q\n%s", got, out)
	}
	// SARIF wants a plain version (SARIF2005): 0.1.0 for the tag v0.1.0.
	plain := strings.TrimPrefix(ver, "v")
	if b := readFile(t, sarif); !bytes.Contains(b, []byte(`"version": "`+plain+`"`)) || !bytes.Contains(b, []byte(`"semanticVersion": "`+plain+`"`)) {
		t.Errorf("the SARIF log does not name the released version %s as %s", ver, plain)
	}
}

// run runs name with args in dir (the test's working directory if empty)
// and the extra environment, failing the test on a non-zero exit.
func run(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), stderr.String())
	}
	return out.String()
}

// runCombined is run with stdout and stderr together, where the go
// command reports what it downloads and adds.
func runCombined(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
