package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// hostileEnv selects the hostile server the test binary runs over stdio.
const hostileEnv = "MCPGUARD_AUDIT_HOSTILE_SERVER"

// serveHostile speaks just enough JSON-RPC to be audited, then misbehaves
// in the way its mode names. It reports whether a mode was selected.
func serveHostile() bool {
	mode := os.Getenv(hostileEnv)
	if mode == "" {
		return false
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	send := func(id json.RawMessage, result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		_, _ = out.Write(append(b, '\n'))
		_ = out.Flush()
	}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		switch msg.Method {
		case "initialize":
			send(msg.ID, map[string]any{"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "hostile-" + mode, "version": "1"}})
		case "tools/list":
			if mode == "giant-line" {
				giantLine(out, msg.ID)
				continue
			}
			send(msg.ID, hostilePage(mode, msg.Params.Cursor))
		case "tools/call":
			if mode == "silent" {
				continue // never answer
			}
			if mode == "codes" {
				var call struct {
					Params struct {
						Name string `json:"name"`
					} `json:"params"`
				}
				_ = json.Unmarshal(in.Bytes(), &call)
				code := map[string]int{"h_zero": 0, "h_reserved": -32050, "h_legacy": -32000, "h_params": -32602}[call.Params.Name]
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": code, "message": "bad call"}})
				_, _ = out.Write(append(b, '\n'))
				_ = out.Flush()
				continue
			}
			send(msg.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no"}}})
		default:
			send(msg.ID, map[string]any{})
		}
	}
	return true
}

// hostileTool is a tool with one required string, so the probe calls it.
func hostileTool(name, desc string) map[string]any {
	return map[string]any{"name": name, "description": desc, "inputSchema": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"q"},
		"properties": map[string]any{"q": map[string]any{"type": "string", "maxLength": 10}},
	}}
}

func hostilePage(mode, cursor string) map[string]any {
	var tools []any
	next := ""
	n := 0
	fmt.Sscanf(cursor, "page-%d", &n)
	switch mode {
	case "huge-list": // more tools than the limit, in one page
		for i := range 20_000 {
			tools = append(tools, hostileTool(fmt.Sprintf("h_t%d", i), "x"))
		}
	case "big-list": // endless pages of 1 MiB each
		for i := range 16 {
			tools = append(tools, hostileTool(fmt.Sprintf("h_p%d_t%d", n, i), strings.Repeat("Use this when asked. ", 3_000)))
		}
		next = fmt.Sprintf("page-%d", n+1)
	case "endless-pages": // a new cursor on every page
		tools = append(tools, hostileTool(fmt.Sprintf("h_t%d", n), "x"))
		next = fmt.Sprintf("page-%d", n+1)
	case "loop-pages": // the same cursor again and again
		tools = append(tools, hostileTool(fmt.Sprintf("h_t%d", n), "x"))
		next = "page-1"
	case "silent": // many tools that never answer a call
		for i := range 1_000 {
			tools = append(tools, hostileTool(fmt.Sprintf("h_t%d", i), "Silent. Use this when testing, then stop."))
		}
	case "codes": // tool failures answered with JSON-RPC errors
		for _, n := range []string{"h_zero", "h_reserved", "h_legacy", "h_params"} {
			tools = append(tools, hostileTool(n, "Fails. Use this when testing, then stop."))
		}
	case "ref-dag": // the $ref DAG of a hostile review: 2^28 paths in 3 KB
		tools = append(tools, refDAGTool(28))
	case "ref-dag-deep": // the same, past the depth the audit reads
		tools = append(tools, refDAGTool(200))
	case "ansi": // names and descriptions that would rewrite a terminal
		tools = append(tools,
			hostileTool("h_a\x1b[2J\x1b[1;1HPASS", "Clears the screen.\x1b[8m hidden"),
			hostileTool("h_b\u202eevil", "Right-to-left override."),
			hostileTool("h_c\U000E0041\U000E0042", "Invisible tags.\r\nFAKE: PASS"),
		)
	}
	return map[string]any{"tools": tools, "nextCursor": next}
}

// refDAGTool has a schema of levels $defs, each an object whose two
// properties both point to the next level: 2^levels paths through a
// schema of a few kilobytes.
func refDAGTool(levels int) map[string]any {
	defs := map[string]any{"Leaf": map[string]any{"type": "string"}}
	for i := range levels {
		next := fmt.Sprintf("#/$defs/L%d", i+1)
		if i == levels-1 {
			next = "#/$defs/Leaf"
		}
		defs[fmt.Sprintf("L%d", i)] = map[string]any{"type": "object", "properties": map[string]any{
			"a": map[string]any{"$ref": next}, "b": map[string]any{"$ref": next}}}
	}
	return map[string]any{"name": "h_dag", "description": "A DAG of references. Use this when testing, then stop.", "inputSchema": map[string]any{
		"type": "object", "additionalProperties": false, "$defs": defs,
		"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/L0"}},
	}}
}

// giantLine answers tools/list with one line far longer than any limit,
// written in chunks: the server stops when the client stops reading.
func giantLine(out *bufio.Writer, id json.RawMessage) {
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"`, id)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 300 { // 300 MiB
		if _, err := out.Write(chunk); err != nil {
			return
		}
	}
	_, _ = out.WriteString("\"}]}}\n")
	_ = out.Flush()
}

// peakHeap samples the heap while f runs and returns the highest
// HeapAlloc seen, in MiB.
func peakHeap(f func()) float64 {
	runtime.GC()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return float64(peak) / (1 << 20)
}

// maxHeapMiB bounds the audit's heap against every hostile server. The
// most any of them reached when this was written was 46 MiB (20,000 tools
// in one page, under the 17 MiB message limit).
const maxHeapMiB = 128

// hostileCase is one hostile stdio server and what the audit must say of it.
type hostileCase struct {
	mode   string
	flags  []string
	code   int
	want   string // in stderr (code 2) or stdout
	absent string // not in stdout
}

// The audit against hostile stdio servers ends with a clear error or a
// bounded report, in bounded memory, within its deadline.
func TestHostileServers(t *testing.T) {
	runHostile(t, []hostileCase{
		{mode: "endless-pages", code: 2, want: "more than 100 pages"},
		{mode: "loop-pages", code: 2, want: "repeats the cursor"},
		{mode: "silent", flags: []string{"--probe", "--json", "--timeout=100ms", "--deadline=4s"}, code: 1, want: `"incomplete": "the deadline passed`},
		{mode: "ansi", code: 1, want: `h_a\x1b[2J\x1b[1;1HPASS`},
		{mode: "ref-dag", flags: []string{"--json", "--deadline=5s"}, code: 0, want: `"check": "C.max_length"`, absent: `"incomplete"`},
		{mode: "ref-dag-deep", flags: []string{"--json", "--deadline=5s"}, code: 1, want: `"check": "C.too_complex"`, absent: `"incomplete"`},
	})
}

// The hostile servers that send the most (10,000 tools, 16 MiB of
// definitions, a 17 MiB line) are about the audit's memory: they run
// without the race detector, whose shadow memory would be measured too
// (.ci/run's allocation and heap step), and took a third of this
// package's time under it.
func TestHostileServersMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the peak heap is measured without the race detector: the README's test command runs it")
	}
	runHostile(t, []hostileCase{
		{mode: "huge-list", code: 2, want: "more than 10000 tools"},
		{mode: "big-list", code: 2, want: "the tool definitions exceed 16777216 bytes"},
		{mode: "giant-line", code: 2, want: "longer than 17825792 bytes"},
	})
}

func runHostile(t *testing.T, cases []hostileCase) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv(hostileEnv, tc.mode)
			var out, errOut bytes.Buffer
			var code int
			args := append(append([]string{}, tc.flags...), "--", exe, "-test.run=^$")
			heap := peakHeap(func() { code = run(context.Background(), args, &out, &errOut) })
			t.Logf("%s: exit %d, peak heap %.1f MiB, stdout %d bytes", tc.mode, code, heap, out.Len())
			require.Equal(t, tc.code, code, "stdout:\n%.2000s\nstderr:\n%.2000s", out.String(), errOut.String())
			got := out.String()
			if code == 2 {
				got = errOut.String()
			}
			assert.Contains(t, got, tc.want)
			if tc.absent != "" {
				assert.NotContains(t, out.String(), tc.absent)
			}
			assert.Less(t, heap, float64(maxHeapMiB), "peak heap")
			assert.Less(t, out.Len(), 1<<20, "a bounded report")
			assert.NotContains(t, errOut.String(), "audit: audit:")
			assert.NotContains(t, errOut.String(), "mcpguard-audit: audit:")
		})
	}
}

// Nothing a server names reaches the terminal unescaped.
func TestTextReportEscapesServerText(t *testing.T) {
	t.Setenv(hostileEnv, "ansi")
	exe, err := os.Executable()
	require.NoError(t, err)
	var out bytes.Buffer
	run(context.Background(), []string{"--", exe, "-test.run=^$"}, &out, io.Discard)
	s := out.String()
	for _, bad := range []string{"\x1b", "\u202e", "\U000E0041", "\r"} {
		assert.NotContains(t, s, bad)
	}
	assert.Contains(t, s, `h_b\u202eevil`)
	assert.Contains(t, s, `h_c\U000e0041\U000e0042`)
}

// The probe judges the JSON-RPC codes a stdio server sends, though mcp-go's
// client keeps only the message of codes it does not know.
func TestProbeSeesJSONRPCCodes(t *testing.T) {
	t.Setenv(hostileEnv, "codes")
	exe, err := os.Executable()
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--probe", "--json", "--", exe, "-test.run=^$"}, &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	r := decode(t, out.String())
	for tool, want := range map[string]string{"h_zero": "code 0", "h_reserved": "code -32050", "h_legacy": "code -32000"} {
		var got []string
		for _, f := range r.Findings {
			if f.Tool == tool && f.Check == audit.CheckJSONRPCCode {
				got = append(got, f.Message)
			}
		}
		require.Len(t, got, 1, tool)
		assert.Contains(t, got[0], want)
	}
	assert.NotContains(t, checksOf(r, "h_params"), audit.CheckJSONRPCCode, "-32602 is the standard code")
	assert.Contains(t, checksOf(r, "h_params"), audit.CheckJSONRPC)
}

// BenchmarkStdio100 audits a 100-tool server over stdio, probe included:
// start-up, initialize, two listings, every rule and up to three calls a
// tool. BenchmarkStdioStartOnly is the same server started and listed
// once, the cost that is the server's own.
func BenchmarkStdio100(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(testServerEnv, "gen100")
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"--probe", "--fail-on=warning", "--", exe, "-test.run=^$"}, &out, &errOut); code != 0 {
			b.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
	}
}

// BenchmarkStdio10000 audits a 10,000-tool server over stdio without the
// probe: start-up, initialize, two listings and every static rule.
func BenchmarkStdio10000(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(testServerEnv, "gen10000")
	b.ReportAllocs()
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"--fail-on=none", "--format=json", "--", exe, "-test.run=^$"}, &out, &errOut); code != 0 {
			b.Fatalf("exit %d\n%.2000s\n%s", code, out.String(), errOut.String())
		}
	}
}

func BenchmarkStdioStartOnly(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(testServerEnv, "gen100")
	for b.Loop() {
		s, err := startStdio(exe, []string{"-test.run=^$"}, io.Discard, defaultMaxMessage, &errorSniffer{})
		if err != nil {
			b.Fatal(err)
		}
		var init mcp.InitializeRequest
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		if _, err := s.client.Initialize(context.Background(), init); err != nil {
			b.Fatal(err)
		}
		if _, err := s.client.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
}
