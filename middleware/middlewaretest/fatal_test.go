package middlewaretest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// fatalRecorder captures Fatal the way testing does: the message is kept
// and the goroutine ends.
type fatalRecorder struct {
	recorder
	fatal string
}

func (r *fatalRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// stops runs f with a fatalRecorder and returns the fatal message, or ""
// when f ran to its end.
func stops(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	rec := &fatalRecorder{recorder: recorder{TB: t}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(rec)
	}()
	wg.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.fatal
}

// A harness used wrongly stops the test with a message saying what is
// wrong, instead of testing something else than was meant; used rightly,
// it does not.
func TestHarnessStopsATestItCannotRun(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		f    func(tb testing.TB)
		want string
	}{
		"nil handler": {func(tb testing.TB) { middlewaretest.New(tb, tool, nil) }, "nil handler"},
		"nil server":  {func(tb testing.TB) { middlewaretest.FromServer(tb, nil) }, "nil server"},
		"Call without New's tool": {func(tb testing.TB) {
			middlewaretest.FromServer(tb, server.NewMCPServer("s", "1")).Call(nil)
		}, "CallTool"},
		"tools/list of a server without tools": {func(tb testing.TB) {
			middlewaretest.FromServer(tb, server.NewMCPServer("s", "1")).ListTools()
		}, "tools/list failed"},
	} {
		if got := stops(t, c.f); !strings.Contains(got, c.want) {
			t.Errorf("%s: want a fatal failure containing %q, got %q", name, c.want, got)
		}
	}
	for name, f := range map[string]func(tb testing.TB){
		"New": func(tb testing.TB) { middlewaretest.New(tb, tool, text("ok")).Call(nil) },
		"FromServer": func(tb testing.TB) {
			middlewaretest.FromServer(tb, server.NewMCPServer("s", "1", server.WithToolCapabilities(false))).ListTools()
		},
	} {
		if got := stops(t, f); got != "" {
			t.Errorf("%s: a correct use stopped the test: %q", name, got)
		}
	}
}

// IsError is true only for an isError result: not for a success, and not
// for a JSON-RPC error, which is no result at all.
func TestIsErrorIsTheResultsFlag(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("s", "1", server.WithToolCapabilities(false))
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("t_ok"), text("ok"))
	s.AddTool(mcp.NewTool("t_fail"), failing(envelope.ErrNotFound))
	srv := middlewaretest.FromServer(t, s)
	if srv.CallTool("t_ok", nil).IsError() {
		t.Error("a success is no error result")
	}
	if !srv.CallTool("t_fail", nil).IsError() {
		t.Error("an envelope is an error result")
	}
	if r := srv.CallTool("t_unknown", nil); r.IsError() || r.ProtocolError == nil {
		t.Errorf("an unknown tool is a protocol error, not an error result: %s", r.Raw)
	}
}

// CallTool with nil sends no arguments member at all, as a client calling a
// tool without arguments does (not "arguments": null).
func TestNilArgumentsSendNone(t *testing.T) {
	t.Parallel()
	var got json.RawMessage
	var seen bool
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got, seen = req.Params.RawArguments, req.Params.Arguments != nil
		return mcp.NewToolResultText("ok"), nil
	}
	middlewaretest.New(t, tool, h).Call(nil).ExpectSuccess()
	if len(got) != 0 || seen {
		t.Fatalf("a call without arguments sent %q", got)
	}
}
