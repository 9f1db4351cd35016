package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
