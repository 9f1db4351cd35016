package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// roleUpstream is a stateless streamable HTTP server that lists each
// caller the tools its credentials allow (as mcp-go's WithToolFilter
// does): admin_tool only to "Bearer admin", and update_user with a role
// member only to "Bearer admin".
func roleUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m childMsg
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || m.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "tools/list":
			props := `"name":{"type":"string"}`
			tools := `{"name":"read","inputSchema":{"type":"object"}}`
			if r.Header.Get("Authorization") == "Bearer admin" {
				props += `,"role":{"type":"string"}`
				tools += `,{"name":"admin_tool","inputSchema":{"type":"object"}}`
			}
			tools += `,{"name":"update_user","inputSchema":{"type":"object","properties":{` + props + `},"additionalProperties":false}}`
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s]}}`, m.ID, tools)
		case "tools/call":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ran %s"}]}}`, m.ID, m.Params.Name)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Without a session (a stateless server), the proxy checks a call against
// the tools its caller was listed, as the credentials tell callers apart:
// another caller's listing, which lacks a tool or declares it otherwise,
// never makes the proxy refuse a call the caller's own listing allows.
func TestSessionlessCallersKeepTheirOwnTools(t *testing.T) {
	url := proxyFor(t, roleUpstream(t).URL)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	post(t, url, list, "Authorization", "Bearer admin")
	post(t, url, list, "Authorization", "Bearer basic")
	_, body := post(t, url, callBody(2, "admin_tool", `{}`), "Authorization", "Bearer admin")
	if m := lastData(t, body); m["error"] != nil || textOf(t, m) != "ran admin_tool" {
		t.Fatalf("admin's call of a tool admin was listed, after another caller's listing: %v", m)
	}
	_, body = post(t, url, callBody(3, "update_user", `{"name":"ann","role":"owner"}`), "Authorization", "Bearer admin")
	if m := lastData(t, body); m["error"] != nil || textOf(t, m) != "ran update_user" {
		t.Fatalf("admin's call, as admin's listing declares it, checked against another's: %v", m)
	}
	_, body = post(t, url, callBody(4, "update_user", `{"name":"ann","role":"owner"}`), "Authorization", "Bearer basic")
	if env := envelopeOf(t, lastData(t, body)); env["error_type"] != "validation_error" {
		t.Fatalf("basic's call, outside basic's declared schema: %v", env)
	}
	_, body = post(t, url, callBody(5, "admin_tool", `{}`), "Authorization", "Bearer basic")
	if e, _ := lastData(t, body)["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Fatalf("basic's call of a tool basic was not listed: %s", body)
	}
}
