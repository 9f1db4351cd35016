package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// TestHTTPTaskStatusKeepsTheClientsID: over HTTP, a tasks/get answer
// whose failed statusMessage the proxy replaces goes back under the id
// the client wrote, not the one the proxy minted for the upstream.
func TestHTTPTaskStatusKeepsTheClientsID(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m childMsg
		_ = json.Unmarshal(b, &m)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"taskId":"t1","status":"failed","statusMessage":"dial postgres://app:s3cr3t@db/prod"}}`)
	}))
	defer up.Close()
	px := httptest.NewServer(proxy.NewHTTP(up.URL))
	defer px.Close()
	resp, err := http.Post(px.URL, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":"client-7","method":"tasks/get","params":{"taskId":"t1"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"id":"client-7"`) || strings.Contains(string(body), "s3cr3t") || !strings.Contains(string(body), "tasks/result answers") {
		t.Fatalf("tasks/get through the proxy: %s", body)
	}
}

// TestHTTPTaskOfAnotherSession: a tasks/result naming a task another
// session created is answered as for a task the proxy does not know: not
// with the tool, nor the arguments, of the call that created it. The
// session that created it still gets its tool named.
func TestHTTPTaskOfAnotherSession(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m childMsg
		_ = json.Unmarshal(b, &m)
		sid := r.Header.Get("Mcp-Session-Id")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-"+strings.Trim(strings.TrimPrefix(string(m.ID), `"mcpguard-`), `"`))
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"serverInfo":{"name":"tasks","version":"1"}}}`)
		case m.Method == "tools/call":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"task":{"taskId":"t-`+sid+`","status":"working","ttl":60000}}}`)
		case m.Method == "tasks/result" && m.Params.TaskID == "t-"+sid:
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"open failed: permission denied"}],"isError":true}}`)
		default: // a server scopes tasks to their session
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32602,"message":"unknown task `+m.Params.TaskID+`"}}`)
		}
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL)
	init := `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	_, _, a := postIn(t, url, "", fmt.Sprintf(init, 1))
	_, _, b := postIn(t, url, "", fmt.Sprintf(init, 2))
	postIn(t, url, a, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"payroll_export","arguments":{"employee":"alice-4711"},"task":{"ttl":60000}}}`)
	task := fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"t-%s"}}`, a)
	_, own, _ := postIn(t, url, a, task)
	if env := envelopeOf(t, lastData(t, own)); env["tool"] != "payroll_export" {
		t.Errorf("the session that created the task: %v", env)
	}
	for _, method := range []string{"tasks/result", "tasks/get"} {
		_, other, _ := postIn(t, url, b, strings.Replace(task, "tasks/result", method, 1))
		if strings.Contains(other, "payroll_export") || strings.Contains(other, "alice-4711") {
			t.Errorf("%s of another session's task names its call: %s", method, other)
		}
	}
}
