package limit_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// httpServer serves shop_search behind Default and Rate(1, 1) with
// DefaultKey on mcp-go's default streamable HTTP server, on loopback, and
// counts the calls that reach the handler.
func httpServer(t *testing.T, opts ...server.StreamableHTTPOption) (url string, handled *atomic.Int64) {
	t.Helper()
	handled = new(atomic.Int64)
	s := server.NewMCPServer("shop", "0", server.WithToolCapabilities(false))
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(1, 1)))...)
	s.AddTool(tool, counting(handled))
	ts := servertest.NewTestStreamableHTTPServer(s, opts...)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", handled
}

// post sends one JSON-RPC message as a hostile client would, with the
// session ID it chose ("" for none), and returns the response's session
// ID header and body.
func post(t *testing.T, url, session, body string) (string, string) {
	t.Helper()
	return postHeaders(t, url, session, body, nil)
}

// postWith is post with headers of the client's own, and returns the
// body.
func postWith(t *testing.T, url, session, body string, headers map[string]string) string {
	t.Helper()
	_, raw := postHeaders(t, url, session, body, headers)
	return raw
}

func postHeaders(t *testing.T, url, session, body string, headers map[string]string) (string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", raw)
	return resp.Header.Get(server.HeaderKeySessionID), string(raw)
}

const (
	callBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shop_search","arguments":{}}}`
	initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
)

// inventedSession is a session ID in the format mcp-go's default session
// manager accepts, which is all it checks.
func inventedSession() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return fmt.Sprintf("mcp-session-%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
}

// TestRateIsNotEvadedByInventedSessions: with Rate(1, 1), 20 tools/call
// POSTs, each with a session ID the client made up and no initialize, or
// each after an initialize of its own, run once, not 20 times, whether or
// not the server names the remote address (limit.HTTPContext). Before
// DefaultKey stopped trusting session IDs, 20 of 20 ran.
func TestRateIsNotEvadedByInventedSessions(t *testing.T) {
	t.Parallel()
	ways := map[string]func(t *testing.T, url string) string{
		"invented session ID": func(*testing.T, string) string { return inventedSession() },
		"fresh initialize": func(t *testing.T, url string) string {
			id, _ := post(t, url, "", initBody)
			require.NotEmpty(t, id, "the server issues a session ID")
			return id
		},
	}
	for name, session := range ways {
		for _, withAddr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, remote address named %v", name, withAddr), func(t *testing.T) {
				t.Parallel()
				var opts []server.StreamableHTTPOption
				if withAddr {
					opts = append(opts, server.WithHTTPContextFunc(limit.HTTPContext))
				}
				url, handled := httpServer(t, opts...)
				refused := 0
				for range 20 {
					_, body := post(t, url, session(t, url), callBody)
					if strings.Contains(body, `"isError":true`) {
						assert.Contains(t, body, `retry_after_ms`)
						refused++
					}
				}
				t.Logf("%s: %d of 20 calls ran", t.Name(), handled.Load())
				assert.EqualValues(t, 1, handled.Load(), "calls that ran")
				assert.Equal(t, 19, refused)
			})
		}
	}
}

// TestRateKeysByPrincipalOverHTTP: two authenticated callers on one
// address get a bucket each, whatever session IDs they send.
func TestRateKeysByPrincipalOverHTTP(t *testing.T) {
	t.Parallel()
	auth := func(ctx context.Context, r *http.Request) context.Context {
		return limit.ContextWithPrincipal(limit.HTTPContext(ctx, r), r.Header.Get("X-User"))
	}
	url, handled := httpServer(t, server.WithHTTPContextFunc(auth))
	call := func(user string) string {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(callBody)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", user)
		req.Header.Set(server.HeaderKeySessionID, inventedSession())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var msg struct{ Result mcp.CallToolResult }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
		if msg.Result.IsError {
			return "refused"
		}
		return "ran"
	}
	assert.Equal(t, "ran", call("alice"))
	assert.Equal(t, "ran", call("bob"))
	assert.Equal(t, "refused", call("alice"))
	assert.Equal(t, "refused", call("bob"))
	assert.EqualValues(t, 2, handled.Load())
}
