package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// baselineOf runs --baseline on a server and returns the file written.
func baselineOf(t *testing.T, env []string, server ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "baseline.json")
	res := runBin(t, env, append([]string{"--baseline", file, "--fail-on", "none"}, server...)...)
	require.Equal(t, 0, res.code, res.stderr)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return string(b)
}

// indented answers with every JSON body of h indented over many lines, as
// some HTTP servers send them.
func indented(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := rec.Body.Bytes()
		var out bytes.Buffer
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && json.Indent(&out, body, "", "    ") == nil {
			body = out.Bytes()
			w.Header().Del("Content-Length")
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// The baseline of a server is the same file over stdio and over HTTP,
// whatever the layout of the HTTP bodies: it pins what the server sent,
// read from the wire, not the transport's framing.
func TestBaselineIsTheSameOverEveryTransport(t *testing.T) {
	env, args := self(t, "good")
	stdio := baselineOf(t, env, args...)
	require.Contains(t, stdio, `{"mcpguard_baseline": 2, "server": "good-shop 1.0.0"`)

	plain := httptest.NewServer(server.NewStreamableHTTPServer(goodServer()))
	defer plain.Close()
	assert.Equal(t, stdio, baselineOf(t, nil, "--url", plain.URL+"/mcp"))

	pretty := httptest.NewServer(indented(server.NewStreamableHTTPServer(goodServer())))
	defer pretty.Close()
	assert.Equal(t, stdio, baselineOf(t, nil, "--url", pretty.URL+"/mcp"))
}

// rawListing starts server over stdio and returns its tools/list answer's
// tools, as it sent them: what mcpguard-proxy --pin reads on the wire.
func rawListing(t *testing.T, env, server []string) []json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { in.Close(); _ = cmd.Wait() }()
	r := bufio.NewReaderSize(out, 1<<20)
	await := func(id int) json.RawMessage {
		for {
			line, err := r.ReadBytes('\n')
			require.NoError(t, err, "%v: waiting for answer %d", server, id)
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(line, &msg) == nil && msg.ID != nil && *msg.ID == id {
				return msg.Result
			}
		}
	}
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pin-test","version":"1"}}}`+"\n")
	await(1)
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(await(2), &page))
	return page.Tools
}

// pinnedFields are the members of a definition a baseline pins.
var pinnedFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// sameAsPinned asserts that each tool the server sent is the definition
// the baseline pinned for it, read as JSON values (numbers as written).
func sameAsPinned(t *testing.T, baseline string, sent []json.RawMessage) {
	t.Helper()
	b, err := audit.ReadBaseline(strings.NewReader(baseline))
	require.NoError(t, err)
	require.Len(t, b.Tools(), len(sent))
	for _, raw := range sent {
		var whole map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &whole))
		projected := map[string]json.RawMessage{}
		for _, f := range pinnedFields {
			if v, ok := whole[f]; ok {
				projected[f] = v
			}
		}
		var name string
		require.NoError(t, json.Unmarshal(whole["name"], &name))
		p, ok := b.Lock().Tool(name)
		require.True(t, ok, "tool %s pinned", name)
		assert.Equal(t, jsonValue(t, must(json.Marshal(projected))), jsonValue(t, p.Definition), "tool %s: the pin is what the server sent", name)
	}
}

func jsonValue(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// pinRestarts is how often TestPinnedServersRestarted restarts each
// server: MCPGUARD_PIN_RESTARTS, 10 in CI's step, 1 by default.
func pinRestarts(t *testing.T) int {
	n, err := strconv.Atoi(os.Getenv("MCPGUARD_PIN_RESTARTS"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// No false alarm: each public npm server and the two mcp-go servers
// (the example shop, the good test server), pinned by --baseline, check
// clean when started again and again (MCPGUARD_PIN_RESTARTS times;
// issue 51 asks for ten). The pins are what each server sends on the
// wire, where mcpguard-proxy --pin reads it, not mcp-go's decoding.
func TestPinnedServersRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts each server many times")
	}
	restarts := pinRestarts(t)
	allowed := t.TempDir()
	noBrowser := filepath.Join(t.TempDir(), "no-browser")
	goodEnv, goodArgs := self(t, "good")
	type srv struct {
		name   string
		env    []string
		server func(t *testing.T) []string
	}
	npm := func(bin string, args ...string) func(t *testing.T) []string {
		return func(t *testing.T) []string { return append([]string{npmBin(t, bin)}, args...) }
	}
	for _, tc := range []srv{
		{name: "mcp-server-everything", server: npm("mcp-server-everything", "stdio")},
		{name: "mcp-server-filesystem", server: npm("mcp-server-filesystem", allowed)},
		{name: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}, server: npm("mcp-server-memory")},
		{name: "mcp-server-sequential-thinking", server: npm("mcp-server-sequential-thinking")},
		{name: "playwright-mcp", env: []string{"TMPDIR=" + t.TempDir()}, server: npm("playwright-mcp", "--headless", "--isolated", "--executable-path", noBrowser)},
		{name: "context7-mcp", server: npm("context7-mcp")},
		{name: "git-mcp-server", server: npm("git-mcp-server")},
		{name: "shop-server", server: func(t *testing.T) []string { return []string{shopServer(t)} }},
		{name: "good", env: goodEnv, server: func(*testing.T) []string { return goodArgs[1:] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := tc.server(t)
			base := baselineOf(t, tc.env, append([]string{"--"}, server...)...)
			file := filepath.Join(t.TempDir(), "pinned.json")
			require.NoError(t, os.WriteFile(file, []byte(base), 0o600))
			sameAsPinned(t, base, rawListing(t, tc.env, server))
			alarms := 0
			for range restarts {
				res := runBin(t, tc.env, append([]string{"--check-baseline", file, "--json", "--fail-on", "none", "--"}, server...)...)
				require.Equal(t, 0, res.code, res.stderr)
				for _, f := range findingsOf(decode(t, res.stdout), audit.RuleBaseline) {
					alarms++
					t.Errorf("false alarm: %s %s: %s %v", f.Check, f.Tool, f.Message, f.Diff)
				}
			}
			t.Logf("%s: %d tools pinned, %d restarts, %d false alarms", tc.name, strings.Count(base, "\n")-2, restarts, alarms)
		})
	}
}
