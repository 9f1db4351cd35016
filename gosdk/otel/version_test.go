package otel_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

// rawSession speaks JSON-RPC to s over streamable HTTP itself, so that
// a test can send what no SDK client sends.
type rawSession struct {
	t       *testing.T
	url     string
	session string
	version string // the MCP-Protocol-Version header, once negotiated
	next    int
}

func dialRaw(t *testing.T, s *mcp.Server) *rawSession {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close)
	return &rawSession{t: t, url: ts.URL}
}

// post sends one message and returns the answer's body.
func (r *rawSession) post(msg map[string]any) []byte {
	r.t.Helper()
	body, err := json.Marshal(msg)
	if err != nil {
		r.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
	}
	if r.version != "" {
		req.Header.Set("Mcp-Protocol-Version", r.version)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	if id := res.Header.Get("Mcp-Session-Id"); id != "" {
		r.session = id
	}
	out, err := io.ReadAll(res.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// request sends method with params and returns the answer's result.
func (r *rawSession) request(method string, params any) json.RawMessage {
	r.t.Helper()
	r.next++
	var res struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	body := r.post(map[string]any{"jsonrpc": "2.0", "id": r.next, "method": method, "params": params})
	if err := json.Unmarshal(body, &res); err != nil || res.Error != nil {
		r.t.Fatalf("%s: %s (%v)", method, body, err)
	}
	return res.Result
}

func (r *rawSession) notify(method string) {
	r.t.Helper()
	r.post(map[string]any{"jsonrpc": "2.0", "method": method})
}

// The span and the metric record the protocol version the session
// negotiated, never the client's text: a client that asks for a version
// the server does not know (here 64 KiB of it, in eleven sessions) makes
// no series of its own, and a request that names an unknown version in
// its _meta is recorded as _OTHER.
func TestProtocolVersionIsTheNegotiatedOne(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddReceivingMiddleware(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)), gosdk.Middleware())
	s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)}, okTool)
	versions := map[string]bool{}
	for i := range 11 {
		asked := strings.Repeat("v", 64<<10) + string(rune('a'+i))
		c := dialRaw(t, s)
		var init struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		res := c.request("initialize", map[string]any{"protocolVersion": asked, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "0"}})
		if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
			t.Fatalf("initialize: %s (%v)", res, err)
		}
		c.version = init.ProtocolVersion
		c.notify("notifications/initialized")
		rec.Spans.Reset()
		c.request("tools/call", map[string]any{"name": toolName, "arguments": map[string]any{}})
		got := oteltest.Values(rec.Span(t).Attributes())["mcp.protocol.version"]
		if got != init.ProtocolVersion {
			t.Fatalf("span records mcp.protocol.version of %d bytes, want the negotiated %q", len(got), init.ProtocolVersion)
		}
		versions[got] = true
	}
	if len(versions) != 1 {
		t.Errorf("%d protocol versions recorded for one negotiated version", len(versions))
	}
	point := rec.PointOf(t, "tools/call", false)
	if v, _ := point.Attributes.Value("mcp.protocol.version"); len(v.AsString()) > 32 {
		t.Errorf("metric point has mcp.protocol.version of %d bytes", len(v.AsString()))
	}

	// A request that names its own version in _meta: go-sdk refuses an
	// unknown one; whatever it records of it is a version it knows.
	c := dialRaw(t, s)
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}})
	c.version = "2025-06-18"
	c.notify("notifications/initialized")
	rec.Spans.Reset()
	c.post(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": map[string]any{
		"name": toolName, "arguments": map[string]any{},
		"_meta": map[string]any{mcp.MetaKeyProtocolVersion: "1999-" + strings.Repeat("x", 1024)}}})
	for _, span := range rec.Spans.GetSpans().Snapshots() {
		got := oteltest.Values(span.Attributes())["mcp.protocol.version"]
		if got != otel.OtherVersion && got != "2025-06-18" && got != "" {
			t.Errorf("a request's own unknown version recorded as %d bytes, want %s", len(got), otel.OtherVersion)
		}
	}
}
