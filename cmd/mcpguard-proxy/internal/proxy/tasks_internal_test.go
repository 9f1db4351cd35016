package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/pipeline"
)

// TestTaskTableIsBounded: the proxy never remembers more than maxTasks
// tasks, forgets expired ones first, and forgets a task at its expiry.
func TestTaskTableIsBounded(t *testing.T) {
	var tt taskTable
	now := time.Unix(1_000_000, 0)
	c := &call{tool: "db_export"}
	tt.remember("short", c, time.Second, now)
	for i := range maxTasks + 100 {
		tt.remember(fmt.Sprint("task-", i), c, time.Hour+time.Duration(i)*time.Millisecond, now)
	}
	if n := len(tt.m); n > maxTasks {
		t.Fatalf("%d tasks remembered, want at most %d", n, maxTasks)
	}
	if _, ok := tt.origin("", "short", now); ok {
		t.Error("an expired task outlived the table's bound")
	}
	if _, ok := tt.origin("", fmt.Sprint("task-", maxTasks+99), now); !ok {
		t.Error("the newest task was forgotten")
	}
	if _, ok := tt.origin("", fmt.Sprint("task-", maxTasks+99), now.Add(2*time.Hour)); ok {
		t.Error("a task outlived its ttl")
	}
	tt.remember("capped", c, 1000*time.Hour, now)
	if o, _ := tt.origin("", "capped", now); o.expires.After(now.Add(maxTaskTTL)) {
		t.Errorf("a ttl of 1000 h was kept until %v, want at most %v", o.expires, maxTaskTTL)
	}
}

// TestStatusTextOfEveryShape: a failed task's statusMessage becomes the
// proxy's text, any other is redacted and bounded, in every shape a
// status comes in, and a message without one comes back as it is.
func TestStatusTextOfEveryShape(t *testing.T) {
	g := newGuard()
	dsn := "postgres://app:s3cr3t@db/prod"
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"failed","statusMessage":"dial ` + dsn + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tasks":[{"taskId":"t","status":"failed","statusMessage":"dial ` + dsn + `"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t","status":"failed","status\u004dessage":"dial ` + dsn + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","statusMessage":"connecting to ` + dsn + `"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working","statusMessage":"` + strings.Repeat("x", 5000) + `"}}`,
	} {
		out := string(g.statusText([]byte(msg), nil))
		if strings.Contains(out, "s3cr3t") || len(out) > maxStatusText+200 {
			t.Errorf("statusText(%.120s) = %.300s", msg, out)
		}
		if strings.Contains(msg, `"failed"`) && !strings.Contains(out, failedStatus) {
			t.Errorf("a failed task's status text is not the proxy's: %s", out)
		}
	}
	plain := []byte(`{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"completed"}}`)
	if out := g.statusText(plain, nil); !same(out, plain) {
		t.Errorf("a status without text changed: %s", out)
	}
}

// TestMayBeHandle: every spelling of taskId a JSON decoder matches is
// found, and a result without one is not.
func TestMayBeHandle(t *testing.T) {
	for _, r := range []string{`{"task":{"taskId":"t"}}`, `{"task":{"TASKID":"t"}}`, `{"task":{"tasKid":"t"}}`, `{"task":{"task\u0049d":"t"}}`, `{"taskid":1}`} {
		if !mayBeHandle([]byte(r)) {
			t.Errorf("mayBeHandle(%s) = false", r)
		}
	}
	for _, r := range []string{`{"content":[{"type":"text","text":"kkk task id"}]}`, `{}`, `k`, `askid`} {
		if mayBeHandle([]byte(r)) {
			t.Errorf("mayBeHandle(%s) = true", r)
		}
	}
}

// A task handle is core/pipeline's Task outcome (a handle, not the tool's
// success, nor a failure); any other result is read as before.
func TestTaskHandleIsTheTaskOutcome(t *testing.T) {
	for raw, want := range map[string]pipeline.Outcome{
		`{"task":{"taskId":"t1","status":"working","ttl":60000}}`: pipeline.Task,
		`{"content":[{"type":"text","text":"ok"}],"task":null}`:   pipeline.Success,
		`{"content":[{"type":"text","text":"ok"}]}`:               pipeline.Success,
		`{"content":[],"isError":true,"task":{"taskId":"t1"}}`:    pipeline.ErrorResult,
	} {
		var r result
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if got := pipeline.Decide(r.answer()); got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
}
