package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

const toolName = "shop_tool"

// rig is a real go-sdk server with otel.Middleware outermost, then
// gosdk.Middleware (with limits), recording into the real OpenTelemetry
// SDK, and a real go-sdk client on the in-memory transport.
type rig struct {
	rec *oteltest.Recorder
	s   *gosdktest.Session
}

func newRig(t *testing.T, h mcp.ToolHandler, opts []otel.Option, limits ...mcp.Middleware) *rig {
	t.Helper()
	rec := oteltest.NewRecorder()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	opts = append([]otel.Option{otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)}, opts...)
	s.AddReceivingMiddleware(otel.Middleware(opts...), gosdk.Middleware(gosdk.WithLimits(limits...)))
	s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	return &rig{rec: rec, s: gosdktest.Connect(t, s)}
}

// call calls the tool, with only the one span of this call recorded.
func (r *rig) call(meta map[string]any) *gosdktest.Result {
	r.rec.Spans.Reset()
	if meta == nil {
		return r.s.Call(toolName, map[string]any{"q": oteltest.ArgumentValue})
	}
	res, err := r.s.ClientSession().CallTool(context.Background(), &mcp.CallToolParams{
		Name: toolName, Arguments: map[string]any{"q": oteltest.ArgumentValue}, Meta: meta,
	})
	if err != nil || res.IsError {
		panic(fmt.Sprintf("call with _meta: %v %+v", err, res))
	}
	return nil
}

// requestID is the id of the JSON-RPC response the client received.
func requestID(t *testing.T, res *gosdktest.Result) string {
	t.Helper()
	var resp struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(res.Raw, &resp); err != nil || len(resp.ID) == 0 {
		t.Fatalf("no id in %s", res.Raw)
	}
	return strings.Trim(string(resp.ID), `"`)
}

func handlerOf(c oteltest.Case) (mcp.ToolHandler, []mcp.Middleware) {
	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	switch c.Kind {
	case oteltest.Fail:
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, c.Err }, nil
	case oteltest.Panic:
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("dial postgres://app:" + oteltest.Secret + "@db/shop")
		}, nil
	case oteltest.Hang:
		return func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, []mcp.Middleware{limit.Timeout(time.Millisecond)}
	case oteltest.RateLimited:
		return ok, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1)}
	case oteltest.Texts:
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: oteltest.TextItems[0]},
				&mcp.ImageContent{Data: []byte("hi"), MIMEType: "image/png"}, &mcp.TextContent{Text: oteltest.TextItems[1]}}}, nil
		}, nil
	case oteltest.Coded:
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: oteltest.CodedCode, Message: "URL elicitation required"}
		}, nil
	case oteltest.ForeignEnvelope:
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: oteltest.ForeignText}},
				StructuredContent: json.RawMessage(oteltest.ForeignStructured)}, nil
		}, nil
	}
	return ok, nil
}

// TestSpanAndMetricPerOutcome runs the table both fronts share: the same
// span and metric point for each outcome as the mcp-go front records.
func TestSpanAndMetricPerOutcome(t *testing.T) {
	t.Parallel()
	for _, c := range oteltest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			h, limits := handlerOf(c)
			var opts []otel.Option
			if c.Results {
				opts = append(opts, otel.WithResults())
			}
			r := newRig(t, h, opts, limits...)
			var res *gosdktest.Result
			for range c.Calls() {
				res = r.call(nil)
			}
			if c.Code == "" {
				res.ExpectSuccess()
			} else {
				res.ExpectError(c.Code)
			}
			oteltest.CheckCall(t, r.rec, c, res.Envelope, oteltest.Expect{
				Tool:            toolName,
				RequestID:       requestID(t, res),
				ProtocolVersion: r.s.ClientSession().InitializeResult().ProtocolVersion,
				// The in-memory transport has no session ID, and go-sdk
				// tells a handler no transport but HTTP.
			})
		})
	}
}

// TestBareOutcomes runs the table of what go-sdk itself answers, without
// gosdk.Middleware (core/otel/oteltest's BareCases): the span says what
// the client received.
func TestBareOutcomes(t *testing.T) {
	t.Parallel()
	for _, c := range oteltest.BareCases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			h, _ := handlerOf(c)
			rec := oteltest.NewRecorder()
			s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
			s.AddReceivingMiddleware(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)))
			s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
			sess := gosdktest.Connect(t, s)
			rec.Spans.Reset()
			res := sess.Call(toolName, nil)
			var resp struct {
				Error struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(res.Raw, &resp); err != nil {
				t.Fatal(err)
			}
			oteltest.CheckBare(t, rec, c, resp.Error.Code)
		})
	}
}
