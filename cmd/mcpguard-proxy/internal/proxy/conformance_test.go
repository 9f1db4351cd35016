package proxy_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// An upstream that ends a call's event stream cleanly before it answers
// (SEP-1699 polling: the answer comes on a resumed GET stream) is passed
// through as it is: the proxy does not answer the call on the server's
// behalf. The conformance suite's server-sse-polling scenario found this.
func TestHTTPStreamClosedBeforeTheAnswerPassesThrough(t *testing.T) {
	up := upstream(t)
	url := proxyFor(t, up.URL+"/mcp")
	_, direct := post(t, up.URL, callBody(1, "poll", `{}`))
	if _, got := post(t, url, callBody(1, "poll", `{}`)); got != direct {
		t.Fatalf("through the proxy: %q, want the upstream's %q", got, direct)
	}
}

// The proxy rewrites Host to the upstream's, which defeats an upstream's
// own DNS-rebinding protection; so on a loopback listener the proxy
// refuses a request whose Host is not loopback itself (the rule go-sdk's
// servers apply), before the upstream sees it. The conformance suite's
// dns-rebinding-protection scenario found this.
func TestHTTPRefusesRebindingHost(t *testing.T) {
	up := upstream(t)
	url := proxyFor(t, up.URL+"/mcp")
	send := func(host string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callBody(1, "echo", `{"text":"x"}`)))
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send("evil.example.com"); code != http.StatusForbidden || strings.Contains(body, `"x"`) {
		t.Errorf("a rebinding Host was proxied: %d %s", code, body)
	}
	for _, host := range []string{"localhost", strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://")} {
		if code, body := send(host); code != http.StatusOK || textOf(t, lastData(t, body)) != "x" {
			t.Errorf("Host %s was refused: %d %s", host, code, body)
		}
	}
}
