package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// statusUpstream answers each request with the HTTP error status its tool
// (or method) asks for, in a body that carries a secret.
func statusUpstream(t *testing.T) *httptest.Server {
	const secret = "dial postgres://app:hunter2@db.internal/shop"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusMethodNotAllowed)
			fmt.Fprint(w, "no stream here: "+secret)
			return
		}
		var m childMsg
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch {
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, m.ID, secret)
		case m.Method == "notifications/initialized":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":%q}}`, "Bad Request: "+secret)
		case m.Params.Name == "forbidden":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://example.com/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, "token sk_live_51HqLyjWDarjtT1zdp7dc denied: "+secret)
		case m.Params.Name == "gone":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "<h1>Session not found</h1><pre>"+secret+"</pre>")
		case m.Params.Name == "rpc400":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":%q}}`, m.ID, secret)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An upstream's HTTP error answers (4xx and 5xx, JSON or not, to a tool
// call, to another request, to a notification, to the GET stream) never
// reach the client as the upstream wrote them: the status is kept where
// it tells the client what to do (401 to authenticate, 404 to start a new
// session), and the body is the proxy's own or redacted.
func TestHTTPUpstreamErrorStatusesAreNeverRelayedRaw(t *testing.T) {
	url := proxyFor(t, statusUpstream(t).URL+"/mcp")
	cases := []struct {
		name, method, body string
		status             int
		header             string // a header the client must still get
	}{
		{"401 to a tool call", http.MethodPost, callBody(1, "forbidden", `{}`), http.StatusUnauthorized, "WWW-Authenticate"},
		{"404 to a tool call", http.MethodPost, callBody(2, "gone", `{}`), http.StatusNotFound, ""},
		{"400 in JSON-RPC to a tool call", http.MethodPost, callBody(3, "rpc400", `{}`), http.StatusBadRequest, ""},
		{"500 in JSON-RPC to tools/list", http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, 0, ""},
		{"400 in JSON to a notification", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusBadRequest, ""},
		{"405 to the GET stream", http.MethodGet, "", http.StatusMethodNotAllowed, ""},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, url, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "hunter2") || strings.Contains(string(b), "sk_live") || strings.Contains(string(b), "<h1>") {
			t.Errorf("%s: the upstream's body reached the client: %d %q", c.name, resp.StatusCode, b)
		}
		if c.status != 0 && resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d (it tells the client what to do)", c.name, resp.StatusCode, c.status)
		}
		if c.header != "" && resp.Header.Get(c.header) == "" {
			t.Errorf("%s: the upstream's %s header did not reach the client", c.name, c.header)
		}
	}
}
