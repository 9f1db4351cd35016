package proxy

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A panic in the proxy while it serves a tool call over HTTP (here in its
// response hook) answers the call with an internal_error envelope, and the
// panic's value stays in the log.
func TestHTTPPanicAnswersTheCall(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`)
	}))
	defer up.Close()
	var logs strings.Builder
	h := NewHTTP(up.URL, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	h.rp.ModifyResponse = func(*http.Response) error { panic("bug at /srv/proxy/http.go:1") }
	p := httptest.NewServer(h)
	defer p.Close()
	resp, err := http.Post(p.URL, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		ID     int `json:"id"`
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ErrorType  string `json:"error_type"`
				IncidentID string `json:"incident_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil || m.ID != 5 || !m.Result.IsError ||
		m.Result.StructuredContent.ErrorType != "internal_error" || strings.Contains(string(b), "/srv/proxy") {
		t.Fatalf("the answer: %s", b)
	}
	if !strings.Contains(logs.String(), m.Result.StructuredContent.IncidentID) || !strings.Contains(logs.String(), "bug at") {
		t.Errorf("the incident is not logged:\n%s", logs.String())
	}
}
