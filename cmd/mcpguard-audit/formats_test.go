package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

var (
	sarifOnce   sync.Once
	sarifSchema *jsonschema.Schema
	sarifErr    error
)

// validSARIF validates out against the SARIF 2.1.0 JSON schema that the
// SARIF SDK's npm package ships (pinned in e2e/node).
func validSARIF(t *testing.T, out string) {
	t.Helper()
	dir := nodetest.Dir(t)
	sarifOnce.Do(func() {
		file := filepath.Join(dir, "node_modules", "@microsoft", "sarif-multitool-linux", "sarif-2.1.0.json")
		f, err := os.Open(file)
		if err != nil {
			sarifErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			sarifErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if sarifErr = c.AddResource("file:///sarif-2.1.0.json", doc); sarifErr != nil {
			return
		}
		sarifSchema, sarifErr = c.Compile("file:///sarif-2.1.0.json")
	})
	require.NoError(t, sarifErr, "the SARIF 2.1.0 schema from e2e/node")
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	require.NoError(t, err, "SARIF output is JSON")
	require.NoError(t, sarifSchema.Validate(inst), "SARIF output validates against the SARIF 2.1.0 schema")
}

var (
	shopOnce sync.Once
	shopBin  string
	shopErr  error
)

// shopServer builds the example shop's stdio server once.
func shopServer(t *testing.T) string {
	t.Helper()
	shopOnce.Do(func() {
		shopBin = filepath.Join(filepath.Dir(bin), "shop-server")
		cmd := exec.Command("go", "build", "-o", shopBin, "./cmd/shop-server")
		cmd.Dir = filepath.Join("..", "..", "example")
		if out, err := cmd.CombinedOutput(); err != nil {
			shopErr = fmt.Errorf("go build shop-server: %v\n%s", err, out)
		}
	})
	require.NoError(t, shopErr)
	return shopBin
}

// Each format for the example shop: full marks everywhere, SARIF that
// validates, Markdown with the score table.
func TestFormatsForTheShop(t *testing.T) {
	shop := shopServer(t)
	for _, format := range []string{"text", "json", "sarif", "markdown"} {
		t.Run(format, func(t *testing.T) {
			res := runBin(t, nil, "--probe", "--fail-on=warning", "--format="+format, "--sarif-uri=example/shop/tools.go", "--", shop)
			require.Equal(t, 0, res.code, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
			switch format {
			case "text":
				assert.Contains(t, res.stdout, "score: A 100%, B 100%, C 100%, D 100%, E 100%, F 100%, overall 100%")
			case "json":
				r := decode(t, res.stdout)
				assert.True(t, r.Perfect(), res.stdout)
			case "sarif":
				validSARIF(t, res.stdout)
				var log struct {
					Runs []struct {
						Results    []map[string]any `json:"results"`
						Properties map[string]any   `json:"properties"`
					} `json:"runs"`
				}
				require.NoError(t, json.Unmarshal([]byte(res.stdout), &log))
				require.Len(t, log.Runs, 1)
				assert.Equal(t, "A 100%, B 100%, C 100%, D 100%, E 100%, F 100%, overall 100%", log.Runs[0].Properties["summary"])
			case "markdown":
				assert.Contains(t, res.stdout, "| **overall** | **100%** | |")
				assert.Contains(t, res.stdout, ": PASS")
			}
		})
	}
	// --json stays a synonym.
	res := runBin(t, nil, "--json", "--", shop)
	require.Equal(t, 0, res.code, res.stderr)
	decode(t, res.stdout)
}

// The SARIF log of a failing server: one SARIF rule per check, results
// located by tool and JSON pointer, severities mapped, server text
// escaped, and valid against the schema.
func TestSARIFOfABadServer(t *testing.T) {
	env, args := self(t, "bad")
	res := runBin(t, env, append([]string{"--probe", "--format=sarif"}, args...)...)
	require.Equal(t, 1, res.code, res.stderr)
	validSARIF(t, res.stdout)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string            `json:"id"`
						DefaultConfiguration map[string]string `json:"defaultConfiguration"`
						Help                 map[string]string `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					LogicalLocations []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &log))
	run := log.Runs[0]
	require.Len(t, run.Tool.Driver.Rules, len(audit.Checks()))
	for _, r := range run.Tool.Driver.Rules {
		assert.NotEmpty(t, r.Help["text"], r.ID)
	}
	levels := map[string]bool{}
	located := map[string]bool{}
	for _, r := range run.Results {
		assert.Equal(t, r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
		levels[r.Level] = true
		located[r.Locations[0].LogicalLocations[0].FullyQualifiedName] = true
	}
	assert.True(t, levels["error"] && levels["warning"] && levels["note"], levels)
	assert.True(t, located["search/name"], located)
	assert.True(t, located["add-to-cart/inputSchema/properties/quantity"], located)
	assert.NotContains(t, res.stdout, "/home/dev", "the log never repeats a leak")
}

// Server text cannot inject terminal controls into any format, nor links
// or HTML into Markdown.
func TestFormatsEscapeServerText(t *testing.T) {
	t.Setenv(hostileEnv, "ansi")
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, format := range []string{"text", "sarif", "markdown"} {
		var out bytes.Buffer
		run(t.Context(), []string{"--format=" + format, "--", exe, "-test.run=^$"}, &out, &bytes.Buffer{})
		s := out.String()
		for _, bad := range []string{"\x1b", "\u202e", "\U000E0041", "\r"} {
			assert.NotContains(t, s, bad, format)
		}
		if format == "sarif" {
			validSARIF(t, s)
		}
	}
	md := audit.Tools([]mcp.Tool{mcp.NewTool("x_<img src=x>[link](http://evil)|cell")})
	var b bytes.Buffer
	require.NoError(t, md.WriteMarkdown(&b))
	assert.NotContains(t, b.String(), "<img")
	assert.NotRegexp(t, `[^\\]\]\(http`, b.String(), "no link")
	assert.Contains(t, b.String(), `\|cell`, "a pipe in a name cannot open a table cell")
}

// rebaseline writes, to a new file, the baseline of the tools in file
// after edit has changed their definitions: the baseline of a server whose
// tools were edited since.
func rebaseline(t *testing.T, file string, edit func(defs map[string]map[string]any)) string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	b, err := audit.ReadBaseline(f)
	f.Close()
	require.NoError(t, err)
	defs := map[string]map[string]any{}
	for _, p := range b.Tools() {
		var d map[string]any
		require.NoError(t, json.Unmarshal(p.Definition, &d))
		defs[p.Name] = d
	}
	edit(defs)
	var tools []mcp.Tool
	for _, p := range b.Tools() {
		d := defs[p.Name]
		var tl mcp.Tool
		require.NoError(t, json.Unmarshal(must(json.Marshal(d)), &tl))
		tl.InputSchema, tl.RawInputSchema = mcp.ToolInputSchema{}, must(json.Marshal(d["inputSchema"]))
		if out, ok := d["outputSchema"]; ok {
			tl.OutputSchema, tl.RawOutputSchema = mcp.ToolOutputSchema{}, must(json.Marshal(out))
		}
		tools = append(tools, tl)
	}
	base, err := audit.Tools(tools, audit.WithServerName(b.Server())).Baseline()
	require.NoError(t, err)
	name := filepath.Join(t.TempDir(), "edited.json")
	out, err := os.Create(name)
	require.NoError(t, err)
	require.NoError(t, base.Write(out))
	require.NoError(t, out.Close())
	return name
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A baseline written for the example shop passes --check-baseline while
// nothing changes, and fails with a readable diff once one tool's
// description and another's enum differ.
func TestBaselineOfTheShop(t *testing.T) {
	shop := shopServer(t)
	file := filepath.Join(t.TempDir(), "mcp-baseline.json")
	res := runBin(t, nil, "--probe", "--baseline", file, "--", shop)
	require.Equal(t, 0, res.code, res.stderr)
	written, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(written), `"sha256"`)

	res = runBin(t, nil, "--check-baseline", file, "--json", "--", shop)
	require.Equal(t, 0, res.code, res.stdout)
	assert.Empty(t, findingsOf(decode(t, res.stdout), audit.RuleBaseline))

	// The same definitions rebuilt: nothing changes (the edit below is all
	// the difference).
	same := rebaseline(t, file, func(map[string]map[string]any) {})
	res = runBin(t, nil, "--check-baseline", same, "--json", "--", shop)
	require.Equal(t, 0, res.code, res.stdout)

	var described, enumed string
	edited := rebaseline(t, file, func(defs map[string]map[string]any) {
		for _, name := range sortedNames(defs) {
			d := defs[name]
			if described == "" {
				described = name
				d["description"] = d["description"].(string) + " Also deletes the catalog."
				continue
			}
			props, _ := d["inputSchema"].(map[string]any)["properties"].(map[string]any)
			for _, pn := range sortedNames(props) {
				if p, ok := props[pn].(map[string]any); ok && enumed == "" {
					if e, ok := p["enum"].([]any); ok {
						p["enum"] = append(e, "everything")
						enumed = name + "/" + pn
					}
				}
			}
		}
	})
	require.NotEmpty(t, enumed, "the shop has a tool with an enum")
	res = runBin(t, nil, "--check-baseline", edited, "--json", "--", shop)
	require.Equal(t, 1, res.code, res.stdout)
	changed := findingsOf(decode(t, res.stdout), audit.RuleBaseline)
	require.Len(t, changed, 2, res.stdout)
	byTool := map[string]audit.Finding{}
	for _, f := range changed {
		assert.Equal(t, audit.CheckBaselineChanged, f.Check)
		byTool[f.Tool] = f
	}
	tool, prop, _ := strings.Cut(enumed, "/")
	assert.Contains(t, byTool[described].Diff[0], "[- Also deletes the catalog.-]", "the baseline had the sentence, the server has not")
	require.NotEmpty(t, byTool[tool].Diff)
	assert.Contains(t, byTool[tool].Diff[0], "/inputSchema/properties/"+prop+"/enum: ")
	assert.Contains(t, byTool[tool].Diff[0], `"everything"]`)

	text := runBin(t, nil, "--check-baseline", edited, "--", shop)
	assert.Contains(t, text.stdout, "baseline.changed")
	assert.Contains(t, text.stdout, "/inputSchema/properties/"+prop+"/enum: ")
}

func findingsOf(r *audit.Report, rule audit.Rule) []audit.Finding {
	var out []audit.Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
