package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/wiretest"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/redact"
)

// The canary is planted in every failure the fuzzer provokes, in the shapes
// the redactor must catch. It must never reach the wire.
const (
	canaryPassword = "c4naryPassw0rd"
	canaryKey      = "sk-c4naryKEY0123456789abcdefgh"
)

func canaryError(msg string) string {
	return fmt.Sprintf("%s\n(dsn postgres://svc:%s@db:5432/app, key %s, password=%s)", msg, canaryPassword, canaryKey, canaryPassword)
}

// FuzzDefault feeds arbitrary argument JSON and arbitrary handler failures
// through Default() and checks the invariants: every call gets a result,
// every error result is a valid envelope, and the canary never leaks.
func FuzzDefault(f *testing.F) {
	f.Add([]byte(`{"q":"x"}`), "relation users does not exist", uint8(0))
	f.Add([]byte(`{"limit":9999}`), "boom", uint8(1))
	f.Add([]byte(`[1,2]`), "", uint8(2))
	f.Add([]byte(`"str"`), `{"error":"INVALID_ARGUMENT","message":"bad"}`, uint8(3))
	f.Add([]byte(`{"a":{"b":{"c":[[[[[]]]]]}}}`), "goroutine 1 [running]:\nmain.f()\n\t/x/y.go:1", uint8(4))
	f.Add([]byte(`null`), "password", uint8(5))
	f.Add([]byte(`{"card_id":"../../etc/passwd"}`), "\"password\": \"", uint8(6))
	f.Add([]byte(`{`), "x", uint8(7))

	run := fuzzSetup()
	f.Fuzz(func(t *testing.T, args []byte, m string, md uint8) { run(t, args, m, md) })
}

// fuzzSetup builds the server once per process and returns the check.
func fuzzSetup() func(t *testing.T, args []byte, m string, md uint8) {
	s := wiretest.NewServer(middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)))...)
	var mode uint8
	var msg string
	handler := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		full := canaryError(msg)
		switch mode % 8 {
		case 0:
			return nil, envelope.Wrap(envelope.ExecutionFailed, errors.New(full))
		case 1:
			panic(full)
		case 2:
			return nil, errors.New(full)
		case 3:
			return mcp.NewToolResultError(full), nil
		case 4:
			return nil, fmt.Errorf("%s: %w", full, envelope.ErrNotFound)
		case 5:
			panic(errors.New(full))
		case 6:
			return mcp.NewToolResultText("ok " + fmt.Sprint(req.GetArguments())), nil
		default:
			return nil, envelope.WithNextSteps(envelope.Wrap(envelope.ValidationError, errors.New(full)), full)
		}
	}
	s.AddTool(mcp.NewTool("fuzz_tool"), handler)
	return func(t *testing.T, args []byte, m string, md uint8) { fuzzOne(t, s, &mode, &msg, args, m, md) }
}

func fuzzOne(t *testing.T, s *server.MCPServer, mode *uint8, msg *string, args []byte, m string, md uint8) {
	{
		*mode, *msg = md, m
		var params string
		if json.Valid(args) {
			params = string(args)
		} else {
			b, _ := json.Marshal(string(args))
			params = string(b)
		}
		raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fuzz_tool","arguments":` + params + `}}`)
		out := s.HandleMessage(context.Background(), raw)
		wire, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("unencodable response: %v", err)
		}
		resp, ok := out.(mcp.JSONRPCResponse)
		if !ok {
			// mcp-go itself rejects arguments that are not an object:
			// a protocol error, and the tool never ran.
			if md%8 != 6 && strings.HasPrefix(strings.TrimSpace(params), "{") {
				t.Fatalf("tool failure became a JSON-RPC error: %s", wire)
			}
			return
		}
		res, ok := resp.Result.(*mcp.CallToolResult)
		if !ok || res == nil {
			t.Fatalf("no tool result: %s", wire)
		}
		if md%8 == 6 {
			return // a success echoing the fuzzer's own arguments
		}
		if !res.IsError {
			t.Fatalf("failure answered as success: %s", wire)
		}
		env, ok := envelope.FromResult(&mcp.CallToolResult{IsError: true, Content: res.Content})
		if !ok {
			t.Fatalf("error result without a valid envelope: %s", wire)
		}
		if len(env.NextSteps) == 0 {
			t.Fatalf("envelope without next steps: %s", wire)
		}
		for _, c := range []string{canaryPassword, canaryKey} {
			if strings.Contains(string(wire), c) && !strings.Contains(redact.String(m), c) {
				t.Fatalf("canary %q leaked: %s", c, wire)
			}
		}
	}
}
