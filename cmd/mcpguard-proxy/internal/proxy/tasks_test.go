package proxy_test

import (
	"bytes"
	"encoding/json"
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
