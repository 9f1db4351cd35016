package proxy_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/limit"
)

// callRecords returns the per-call records of a JSON log, in order, once
// it holds n of them (or what it holds after ten seconds).
func callRecords(t *testing.T, logs *syncBuffer, n int) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(logs.waitForN(calllog.Message, n), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == calllog.Message {
			recs = append(recs, rec)
		}
	}
	return recs
}

// WithCallLog records each call once, as its client received it, with
// the fronts' record: the upstream's success and failure, the proxy's own
// answers (a timeout, which a call used to leave unrecorded and the guard
// unsettled; an unknown tool's -32602), a JSON-RPC error, redacted, and
// the repeated-failure guard's refusal, at Begin; arguments only when asked, secrets masked.
func TestCallLogRecordsEachCallAsItsClientReceivedIt(t *testing.T) {
	logs := &syncBuffer{}
	s := start(t, proxy.WithCallLog(calllog.WithArguments()), proxy.WithTimeout(300*time.Millisecond),
		proxy.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	s.call("echo", `{"text":"hi","api_key":"sk-live-0123456789abcdef0123456789abcdef"}`)
	s.call("fail_text", `{}`)
	s.call("hang", `{}`)
	s.call("fail_rpc", `{}`)
	s.call("bad_args", `{}`)
	s.call("no_such_tool", `{}`)
	for range 4 {
		s.call("fail_text", `{"n":1}`)
	}
	recs := callRecords(t, logs, 10)
	if len(recs) != 10 {
		t.Fatalf("%d call records, want 10 (one a call):\n%s", len(recs), logs)
	}
	want := []struct{ tool, outcome, level, errorType string }{
		{"echo", "success", "INFO", ""},
		{"fail_text", "tool_error", "WARN", "access_denied"},
		{"hang", "tool_error", "WARN", "execution_failed"}, // the proxy's timeout
		{"fail_rpc", "tool_error", "WARN", "execution_failed"},
		{"bad_args", "tool_error", "WARN", "validation_error"},
		{"no_such_tool", "protocol_error", "ERROR", ""}, // answered by the proxy, before every stage of admission
		{"fail_text", "tool_error", "WARN", "access_denied"},
		{"fail_text", "tool_error", "WARN", "access_denied"},
		{"fail_text", "tool_error", "WARN", "access_denied"},
		{"fail_text", "tool_error", "WARN", "execution_failed"}, // the guard's refusal of the fourth identical call, at Begin
	}
	for i, w := range want {
		r := recs[i]
		et, _ := r[calllog.KeyErrorType].(string)
		if r[calllog.KeyTool] != w.tool || r[calllog.KeyOutcome] != w.outcome || r["level"] != w.level || et != w.errorType {
			t.Errorf("record %d = %v, want %+v", i, r, w)
		}
		if _, ok := r[calllog.KeyDuration]; !ok {
			t.Errorf("record %d has no duration: %v", i, r)
		}
	}
	if args, _ := recs[0][calllog.KeyArguments].(string); !strings.Contains(args, `"text":"hi"`) || strings.Contains(args, "sk-live") {
		t.Errorf("arguments = %q: want them, the key masked", args)
	}
	if strings.Contains(logs.String(), "ghp_abcdef") || strings.Contains(logs.String(), "hunter2") {
		t.Errorf("a secret of an answer reached the log:\n%s", logs)
	}
}

// Without WithCallLog the proxy writes no record of a call.
func TestNoCallLogByDefault(t *testing.T) {
	logs := &syncBuffer{}
	s := start(t, proxy.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	s.call("echo", `{"text":"hi"}`)
	s.call("fail_text", `{}`)
	if strings.Contains(logs.String(), calllog.Message) {
		t.Errorf("a call record without WithCallLog:\n%s", logs)
	}
}

// A call a limit held is recorded with its admission and how long it was
// held, as the fronts record one (core/limit notes the hold).
func TestCallLogRecordsAHeldCall(t *testing.T) {
	logs := &syncBuffer{}
	s := start(t, proxy.WithCallLog(), proxy.WithRate(10, 1), proxy.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	for _, id := range []string{"a", "b"} {
		if _, err := io.WriteString(s.in, stampCall(id, true)+"\n"); err != nil {
			t.Fatal(err)
		}
		if got := string(s.read()); strings.Contains(got, `"isError":true`) {
			t.Fatalf("call %s refused: %s", id, got)
		}
	}
	recs := callRecords(t, logs, 2)
	if len(recs) != 2 {
		t.Fatalf("%d call records, want 2:\n%s", len(recs), logs)
	}
	if _, held := recs[0][calllog.KeyAdmission]; held {
		t.Errorf("the first call was not held: %v", recs[0])
	}
	if recs[1][calllog.KeyAdmission] != "held" || recs[1][calllog.KeyOutcome] != "success" {
		t.Errorf("the second call's record = %v, want admission held, a success", recs[1])
	}
	if ms, _ := recs[1][calllog.KeyHeldMS].(float64); ms <= 0 {
		t.Errorf("held_ms = %v, want > 0", recs[1][calllog.KeyHeldMS])
	}
}

// A call shed for want of room to be held is recorded, as the go-sdk
// front records one: an input_required outcome, its admission shed.
func TestCallLogRecordsAShedCall(t *testing.T) {
	logs := &syncBuffer{}
	s := start(t, proxy.WithCallLog(), proxy.WithConcurrency(1, 0), proxy.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	fillHolds(t, s, 300, limit.HoldPerCaller+4)
	for _, rec := range callRecords(t, logs, 1) {
		if rec[calllog.KeyAdmission] == "shed" {
			if rec[calllog.KeyOutcome] != "input_required" || rec[calllog.KeyTool] != "received" {
				t.Errorf("a shed call's record = %v, want the outcome input_required", rec)
			}
			return
		}
	}
	t.Errorf("no record of a shed call:\n%s", logs)
}
