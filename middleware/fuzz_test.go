package middleware_test

import (
	"bytes"
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
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// The canary is planted in every failure the fuzzer provokes, in the shapes
// the redactor must catch: a password in a DSN and in a pair, an API key, a
// source position and, last because it runs to the end of the text, a
// goroutine dump. None of it may reach the wire.
const (
	canaryPassword = "c4naryPassw0rd"
	canaryKey      = "sk-c4naryKEY0123456789abcdefgh"
	canaryPosition = "c4narydb.go:17"
	canaryDump     = "goroutine 7 [running]"
	canaryFrame    = "c4nary/handler.go:42"
)

// canaries are what fuzzOne looks for on the wire.
var canaries = []string{canaryPassword, canaryKey, canaryPosition, canaryDump, canaryFrame}

func canaryError(msg string) string {
	return fmt.Sprintf("%s\n(dsn postgres://svc:%s@db:5432/app, key %s, password=%s, at %s)\n%s:\nmain.handler()\n\t%s +0x1d",
		msg, canaryPassword, canaryKey, canaryPassword, canaryPosition, canaryDump, canaryFrame)
}

// FuzzDefault feeds arbitrary argument JSON and arbitrary handler failures
// through Default() and checks the invariants with the public harness:
// every call gets a result, every error result passes ExpectError (a
// strictly decoded envelope of the expected type, naming the tool, with
// next steps, structuredContent equal to the text), and no canary leaks.
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

// fuzzCodes is the error_type each failing mode must produce; mode 3 (a
// hand-built error result) takes the code its text names, and mode 6 is a
// success.
var fuzzCodes = map[uint8]envelope.Code{
	0: envelope.ExecutionFailed, 1: envelope.InternalError, 2: envelope.InternalError,
	4: envelope.NotFound, 5: envelope.InternalError, 7: envelope.ValidationError,
}

// fuzzSetup builds the server once per process and returns the check.
func fuzzSetup() func(t *testing.T, args []byte, m string, md uint8) {
	s := server.NewMCPServer("fuzz", "1.0.0", server.WithToolCapabilities(false))
	// Each input is a call of its own: the repeated-failure guard, which
	// answers a call that failed three times unchanged without running
	// it, would answer for the handler the fuzzer varies.
	s.Use(middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)), middleware.WithRepeats(nil))...)
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
			return nil, envelope.AddNextSteps(envelope.Wrap(envelope.ValidationError, errors.New(full)), full)
		}
	}
	s.AddTool(mcp.NewTool("fuzz_tool"), handler)
	return func(t *testing.T, args []byte, m string, md uint8) {
		mode, msg = md, m
		fuzzOne(t, middlewaretest.FromServer(t, s), args, m, md)
	}
}

func fuzzOne(t *testing.T, srv *middlewaretest.Server, args []byte, m string, md uint8) {
	params := json.RawMessage(args)
	if !json.Valid(args) {
		params, _ = json.Marshal(string(args))
	}
	r := srv.CallTool("fuzz_tool", params)
	if r.ProtocolError != nil {
		// mcp-go itself rejects arguments that are not an object: a
		// protocol error, and the tool never ran.
		if md%8 != 6 && bytes.HasPrefix(bytes.TrimSpace(params), []byte("{")) {
			t.Fatalf("tool failure became a JSON-RPC error: %s", r.Raw)
		}
		return
	}
	if r.CallResult == nil {
		t.Fatalf("no tool result: %s", r.Raw)
	}
	if md%8 == 6 {
		r.ExpectSuccess() // a success echoing the fuzzer's own arguments
		return
	}
	if r.Envelope == nil {
		t.Fatalf("error result without a valid envelope: %s", r.Raw)
	}
	want, ok := fuzzCodes[md%8]
	if !ok {
		want = r.Envelope.ErrorType
	}
	r.ExpectError(want)
	for _, c := range canaries {
		if strings.Contains(string(r.Raw), c) && !strings.Contains(redact.String(m), c) {
			t.Fatalf("canary %q leaked: %s", c, r.Raw)
		}
	}
	// Whatever kind of leak the shared patterns find on the wire was in
	// what the handler or the fuzzer sent: the chain adds none of its own
	// (a path, a panic, a runtime error that nobody sent).
	// The failure's text is on the wire JSON-encoded once
	// (structuredContent) and twice (the text envelope), so it is searched
	// in both forms. It holds the canaries, which the loop above checks
	// one by one.
	sent := leakKinds(middlewaretest.Leaks(params))
	// The wire may spell invalid UTF-8 as a literal U+FFFD where
	// json.Marshal writes \ufffd, which changes what a pattern sees
	// beside it ("\xffA:" is a drive letter only after the literal).
	once, _ := json.Marshal(canaryError(m))
	twice, _ := json.Marshal(string(once))
	valid, _ := json.Marshal(strings.ToValidUTF8(canaryError(m), "\uFFFD"))
	validTwice, _ := json.Marshal(string(valid))
	for _, form := range [][]byte{once, twice, valid, validTwice} {
		for k := range leakKinds(middlewaretest.Leaks(form)) {
			sent[k] = true
		}
	}
	for k := range leakKinds(middlewaretest.Leaks(r.Raw)) {
		if !sent[k] {
			t.Fatalf("the wire carries %s, which the fuzzer never sent: %s", k, r.Raw)
		}
	}
}

// leakKinds returns the kinds of Leaks' findings ("a goroutine dump"),
// without the text that matched.
func leakKinds(found []string) map[string]bool {
	out := make(map[string]bool, len(found))
	for _, f := range found {
		kind, _, _ := strings.Cut(f, " (")
		out[kind] = true
	}
	return out
}
