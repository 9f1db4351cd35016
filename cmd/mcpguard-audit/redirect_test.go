package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counting serves h and counts the requests it receives.
type counting struct {
	h http.Handler
	n atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// elsewhere is a second loopback server, on another port, that serves a
// real MCP server and counts what reaches it: the address a hostile first
// server redirects to.
func elsewhere(t *testing.T) (*httptest.Server, *counting) {
	t.Helper()
	c := &counting{h: server.NewStreamableHTTPServer(goodServer())}
	ts := httptest.NewServer(c)
	t.Cleanup(ts.Close)
	return ts, c
}

// redirecting answers every request with 307 to target (a 307 keeps the
// method and the body, so a client that follows it sends its initialize
// there).
func redirecting(t *testing.T, target string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func runAudit(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// A server on loopback that redirects to another address does not make the
// audit send its initialize there: the run fails with exit 2 and says why.
func TestRedirectToAnotherAddressIsRefused(t *testing.T) {
	other, got := elsewhere(t)
	first := redirecting(t, other.URL+"/mcp")

	code, stdout, stderr := runAudit("--connect-timeout=10s", "--url", first.URL+"/mcp")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, int64(0), got.n.Load(), "the audit sent a request to the address it was redirected to")
	assert.Contains(t, stderr, "redirect")
	assert.Contains(t, stderr, other.URL+"/mcp")
	assert.Contains(t, stderr, "--follow-redirects")
}

// The address is the scheme, the host as given and the port: another name
// of a loopback host is another address, whether the port differs too or
// not.
func TestRedirectToAnotherNameOfTheSameHostIsRefused(t *testing.T) {
	other, got := elsewhere(t)
	byName := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	first := redirecting(t, byName+"/mcp")

	code, _, stderr := runAudit("--connect-timeout=10s", "--url", first.URL+"/mcp")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Equal(t, int64(0), got.n.Load())

	// A server reached as localhost that redirects to its own 127.0.0.1
	// address: the same port, another host.
	real := server.NewStreamableHTTPServer(goodServer())
	var direct string
	self := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == direct {
			got.n.Add(1)
			real.ServeHTTP(w, r)
			return
		}
		http.Redirect(w, r, "http://"+direct+"/mcp", http.StatusTemporaryRedirect)
	}))
	direct = self.Listener.Addr().String()
	self.Start()
	t.Cleanup(self.Close)
	code, _, stderr = runAudit("--connect-timeout=10s", "--url", strings.Replace(self.URL, "127.0.0.1", "localhost", 1)+"/mcp")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Equal(t, int64(0), got.n.Load(), "the audit followed a redirect to another host name")
}

// A server that answers initialize and tools/list itself but redirects the
// probe's tool calls elsewhere gets no tool call sent there either: the
// run stops with exit 2 instead of reporting the refused calls as the
// server's answers.
func TestRedirectOfToolCallsIsRefused(t *testing.T) {
	other, got := elsewhere(t)
	real := server.NewStreamableHTTPServer(goodServer())
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" {
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		real.ServeHTTP(w, r)
	}))
	t.Cleanup(first.Close)

	code, stdout, stderr := runAudit("--probe", "--url", first.URL+"/mcp")
	assert.Equal(t, exitUsage, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, int64(0), got.n.Load(), "a probe call reached the address the server redirected to")
	assert.Contains(t, stderr, "redirect")
	assert.Contains(t, stderr, other.URL+"/mcp")
}

// A redirect within the address (another path) is followed: it is the
// same server.
func TestRedirectWithinTheAddressIsFollowed(t *testing.T) {
	real := server.NewStreamableHTTPServer(goodServer())
	mux := http.NewServeMux()
	mux.Handle("/mcp", real)
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	code, stdout, stderr := runAudit("--probe", "--fail-on=warning", "--url", ts.URL+"/old")
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "D 100%")
}

// With --follow-redirects the audit follows a redirect to another loopback
// address, and audits the server there.
func TestFollowRedirectsFollowsToAnotherLoopbackAddress(t *testing.T) {
	other, got := elsewhere(t)
	first := redirecting(t, other.URL+"/mcp")

	code, stdout, stderr := runAudit("--follow-redirects", "--probe", "--fail-on=warning", "--url", first.URL+"/mcp")
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "D 100%")
	assert.Positive(t, got.n.Load())
}

// Even with --follow-redirects, a redirect off loopback is refused before
// any connection is made (checked on the policy itself: this test must not
// even try an address off this machine).
func TestFollowRedirectsNeverLeavesLoopback(t *testing.T) {
	check := redirectPolicy(mustURL(t, "http://127.0.0.1:8080/mcp"), true, nil)
	for _, target := range []string{"http://10.0.0.1:8080/mcp", "http://example.com/mcp", "http://127.0.0.1.nip.io/mcp", "file:///etc/passwd"} {
		req, err := http.NewRequest(http.MethodPost, target, nil)
		require.NoError(t, err)
		err = check(req, []*http.Request{mustRequest(t, "http://127.0.0.1:8080/mcp")})
		require.Error(t, err, target)
		assert.Contains(t, err.Error(), "loopback", target)
	}
	ok := mustRequest(t, "http://[::1]:9/mcp")
	assert.NoError(t, check(ok, []*http.Request{mustRequest(t, "http://127.0.0.1:8080/mcp")}))

	// A chain of redirects ends, whatever the server does.
	via := make([]*http.Request, maxRedirects)
	for i := range via {
		via[i] = mustRequest(t, "http://127.0.0.1:8080/mcp")
	}
	err := check(mustRequest(t, "http://127.0.0.1:8081/mcp"), via)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirects")
}

// The address compared is the scheme, the host and the port, with the
// scheme's default port made explicit.
func TestSameAddress(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/other?x=1", true},
		{"http://127.0.0.1/mcp", "http://127.0.0.1:80/mcp", true},
		{"https://localhost/mcp", "https://LOCALHOST:443/", true},
		{"http://127.0.0.1:8080/mcp", "https://127.0.0.1:8080/mcp", false},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", false},
		{"http://127.0.0.1:8080/mcp", "http://localhost:8080/mcp", false},
		{"http://127.0.0.1/mcp", "http://127.0.0.1:443/mcp", false},
	} {
		assert.Equal(t, c.same, sameAddress(mustURL(t, c.a), mustURL(t, c.b)), "%s vs %s", c.a, c.b)
	}
}

func TestFollowRedirectsIsInTheHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"--help"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "-follow-redirects")
}

func mustRequest(t *testing.T, raw string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, raw, nil)
	require.NoError(t, err)
	return req
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
