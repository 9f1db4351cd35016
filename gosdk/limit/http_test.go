package limit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// hourly allows one call per key and refills in an hour: a second call
// with the same key within a test is refused.
func hourly() mcp.Middleware { return limit.Rate(rate.Every(time.Hour), 1) }

// serveHTTP serves one go-sdk server over streamable HTTP on loopback,
// behind wrap, with the limits inside gosdk.Middleware.
func serveHTTP(t *testing.T, opts *mcp.StreamableHTTPOptions, wrap func(http.Handler) http.Handler, layers ...mcp.Middleware) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(layers...)))
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, ok)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// bearer is an HTTP client that sends token.
func bearer(token string) *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func dial(t *testing.T, url string, c *http.Client) *gosdktest.Session {
	return gosdktest.Dial(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: c, DisableStandaloneSSE: true})
}

// TestRateKeysByTokenInfo: behind go-sdk's auth.RequireBearerToken, each
// user has a bucket of its own, whatever session it calls from.
func TestRateKeysByTokenInfo(t *testing.T) {
	t.Parallel()
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, found := strings.CutSuffix(token, "-token")
		if !found {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	url := serveHTTP(t, nil, auth.RequireBearerToken(verify, nil), hourly())

	alice := dial(t, url, bearer("alice-token"))
	alice.Call(tool, nil).ExpectSuccess()
	alice.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
	dial(t, url, bearer("bob-token")).Call(tool, nil).ExpectSuccess() // another user, another bucket
	// Another session of alice's: still alice's bucket.
	dial(t, url, bearer("alice-token")).Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
}

// TestNewSessionsGetNoFreshBucket: a client that opens session after
// session, from one address, spends one budget; go-sdk refuses a session
// ID it did not issue before any middleware runs.
func TestNewSessionsGetNoFreshBucket(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, nil, limit.HTTPHandler, hourly())
	first := dial(t, url, nil)
	first.Call(tool, nil).ExpectSuccess()
	for range 3 {
		dial(t, url, nil).Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
	}
	if code, body := post(t, url, "invented-session-id"); code != http.StatusNotFound {
		t.Fatalf("a session ID the server did not issue: HTTP %d %s", code, body)
	}
}

// TestInventedSessionIDsGetNoFreshBucket: a stateless server accepts any
// session ID; a client inventing one per call still spends one budget.
func TestInventedSessionIDsGetNoFreshBucket(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, &mcp.StreamableHTTPOptions{Stateless: true}, limit.HTTPHandler, hourly())
	refused := 0
	for i := range 5 {
		code, body := post(t, url, "invented-"+strings.Repeat("x", i+1))
		if code != http.StatusOK {
			t.Fatalf("HTTP %d %s", code, body)
		}
		if strings.Contains(body, "Rate limit reached") {
			refused++
		}
	}
	if refused != 4 {
		t.Fatalf("%d of 5 calls with invented session IDs refused, want 4", refused)
	}
}

// TestRemoteAddressesAreKeyedApart: HTTPHandler names the address, so
// callers without a token from different addresses have buckets of their
// own, and each address's sessions share one.
func TestRemoteAddressesAreKeyedApart(t *testing.T) {
	t.Parallel()
	from := func(addr string) func(http.Handler) http.Handler {
		return func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if a := r.Header.Get("X-Test-Addr"); a != "" {
					r.RemoteAddr = a
				}
				limit.HTTPHandler(h).ServeHTTP(w, r)
			})
		}
	}
	url := serveHTTP(t, nil, from(""), hourly())
	at := func(addr string) *http.Client {
		return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("X-Test-Addr", addr)
			return http.DefaultTransport.RoundTrip(r)
		})}
	}
	dial(t, url, at("192.0.2.1:1000")).Call(tool, nil).ExpectSuccess()
	dial(t, url, at("192.0.2.1:2000")).Call(tool, nil).ExpectError(gosdk.ExecutionFailed) // another port, the same caller
	dial(t, url, at("192.0.2.2:1000")).Call(tool, nil).ExpectSuccess()
}

// post sends one tools/call on its own, with sessionID, and returns the
// status and body.
func post(t *testing.T, url, sessionID string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
