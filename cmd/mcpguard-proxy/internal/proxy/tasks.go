package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/core/wire"
)

// This file follows a task-augmented tools/call (MCP 2025-11-25 and
// 2026-07-28): a call with "task" in its params is answered at once with a
// task handle, {"task":{"taskId":…,"status":"working",…}}; the tool's real
// result comes later as the answer to tasks/result, and the task's status
// text as statusMessage in the answers to tasks/get, tasks/list and
// tasks/cancel and in notifications/tasks/status.
//
// The proxy remembers, for each handle it relays, the call that created
// it (tool and arguments), and rewrites the answer to tasks/result exactly
// as it rewrites the answer to that call: a JSON-RPC error or an isError
// result becomes an envelope, redacted with the call's arguments. A
// tasks/result for a task it does not remember (forgotten, created
// before the proxy started, or in another MCP session) is rewritten all
// the same, as a call of a tool it cannot name. A failed task's statusMessage is replaced by a fixed
// text that points to tasks/result; any other statusMessage is redacted.

// taskTable remembers which call created each task the proxy relayed a
// handle for, until the task's ttl (capped) passes, by its session and
// its id: a tasks/result of another session names a task the proxy does
// not know, as the server answers it. Its size is bounded.
type taskTable struct {
	mu sync.Mutex
	m  map[string]taskOrigin
}

// taskOrigin is the call a task came from.
type taskOrigin struct {
	tool    string
	args    json.RawMessage
	expires time.Time
}

const (
	// maxTasks bounds the tasks the proxy remembers: past it, the entry
	// that expires first is forgotten.
	maxTasks = 4096
	// defaultTaskTTL is how long a task whose handle names no ttl is
	// remembered; maxTaskTTL caps a ttl the upstream names.
	defaultTaskTTL = time.Hour
	maxTaskTTL     = 24 * time.Hour
)

// remember records that the task id, of c's session, came from c, for
// ttl, with a copy of c's arguments (a stdio request's buffer is reused by
// the next call).
func (t *taskTable) remember(id string, c *call, ttl time.Duration, now time.Time) {
	if !rememberable(c.session) {
		return
	}
	id = taskKey(c.session, id)
	if ttl <= 0 {
		ttl = defaultTaskTTL
	}
	ttl = min(ttl, maxTaskTTL)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]taskOrigin)
	}
	if _, ok := t.m[id]; !ok && len(t.m) >= maxTasks {
		t.evict(now)
	}
	t.m[id] = taskOrigin{tool: c.tool, args: bytes.Clone(c.args), expires: now.Add(ttl)}
}

// evict forgets every expired task, or, when none has expired, the one
// that expires first. t.mu is held.
func (t *taskTable) evict(now time.Time) {
	first, at := "", time.Time{}
	for id, o := range t.m {
		if !o.expires.After(now) {
			delete(t.m, id)
			continue
		}
		if first == "" || o.expires.Before(at) {
			first, at = id, o.expires
		}
	}
	if len(t.m) >= maxTasks && first != "" {
		delete(t.m, first)
	}
}

// taskKey is the key of the task id of session.
func taskKey(session, id string) string { return session + "\x00" + id }

// origin returns the call the task id of session came from, if the proxy
// remembers it.
func (t *taskTable) origin(session, id string, now time.Time) (taskOrigin, bool) {
	id = taskKey(session, id)
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.m[id]
	if ok && !o.expires.After(now) {
		delete(t.m, id)
		return taskOrigin{}, false
	}
	return o, ok
}

// taskCall is the call a tasks/result request (id, params) of session
// answers for: the tools/call that created the task, under the request's
// id. It is never admitted (no slot, no rate): the work was admitted as
// the call.
func (g *Guard) taskCall(id, params []byte, session string) *call {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p) // readClient admitted the message
	c := &call{id: bytes.Clone(id), start: time.Now(), task: p.TaskID, taskResult: true, session: session}
	if o, ok := g.tasks.origin(session, p.TaskID, c.start); ok {
		c.tool, c.args = o.tool, o.args
	}
	return c
}

// handle reads a tools/call result that may be a task handle: when it is,
// the task is remembered as coming from c and the handle's status text is
// made safe. It returns the result to send and whether it was a handle.
func (g *Guard) handle(c *call, result []byte) ([]byte, bool) {
	if !mayBeHandle(result) {
		return result, false
	}
	var r struct {
		Task *struct {
			TaskID string `json:"taskId"`
			TTL    *int64 `json:"ttl"`
		} `json:"task"`
	}
	if json.Unmarshal(result, &r) != nil || r.Task == nil || r.Task.TaskID == "" {
		return result, false
	}
	var ttl time.Duration
	if r.Task.TTL != nil && *r.Task.TTL > 0 {
		ttl = time.Duration(min(*r.Task.TTL, int64(maxTaskTTL/time.Millisecond))) * time.Millisecond
	}
	g.tasks.remember(r.Task.TaskID, c, ttl, time.Now())
	return g.statusText(result, c.args), true
}

// relayedTask makes the status text of msg safe when msg is a task's
// status: the answer to tasks/get, tasks/list or tasks/cancel, or
// notifications/tasks/status. Other messages come back unchanged.
func (g *Guard) relayedTask(method string, msg []byte) []byte {
	switch method {
	case "tasks/get", "tasks/list", "tasks/cancel", "notifications/tasks/status":
		return g.statusText(msg, nil)
	}
	return msg
}

// failedStatus is the statusMessage of a failed task: the upstream's text
// is a failure's text (a DSN, a stack), and the envelope that says what
// went wrong, redacted, is the answer to tasks/result.
const failedStatus = "the task failed; tasks/result answers with what went wrong and what to do next"

// maxStatusText bounds a statusMessage the proxy relays.
const maxStatusText = 1024

// statusText rewrites every statusMessage in msg: a failed task's is
// replaced by failedStatus, any other is redacted (with the arguments
// of the call, when known) and bounded. msg itself comes back when none
// changes.
func (g *Guard) statusText(msg []byte, args json.RawMessage) []byte {
	if !wire.ContainsFold(msg, "statusMessage") && bytes.IndexByte(msg, '\\') < 0 {
		return msg
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return msg
	}
	red := g.r.Redactor().ForCall(args)
	changed := false
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if depth > 64 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, item := range x {
				text, isText := item.(string)
				if !isText || !wire.FoldsAs([]byte(k), []byte("statusMessage")) {
					visit(item, depth+1)
					continue
				}
				clean := red.String(text)
				if status, _ := x["status"].(string); status == "failed" {
					clean = failedStatus
				}
				if len(clean) > maxStatusText {
					clean = strings.ToValidUTF8(clean[:maxStatusText], "") + "…"
				}
				if clean != text {
					x[k], changed = clean, true
				}
			}
		case []any:
			for _, item := range x {
				visit(item, depth+1)
			}
		}
	}
	visit(v, 0)
	if !changed {
		return msg
	}
	out, err := json.Marshal(v)
	if err != nil {
		return msg
	}
	return out
}

// relatedTaskMeta is the _meta key that names the task a message is about.
const relatedTaskMeta = "io.modelcontextprotocol/related-task"

// relateTask adds the related-task _meta naming task to the result of the
// response msg, which the proxy rendered, unless it names one already.
func relateTask(msg []byte, task string) []byte {
	var resp map[string]json.RawMessage
	if json.Unmarshal(msg, &resp) != nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(resp["result"], &res) != nil || res == nil {
		return msg
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := res["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return msg
	}
	if _, ok := meta[relatedTaskMeta]; ok {
		return msg
	}
	meta[relatedTaskMeta], _ = json.Marshal(map[string]string{"taskId": task})
	res["_meta"], _ = json.Marshal(meta)
	resp["result"], _ = json.Marshal(res)
	out, err := json.Marshal(resp)
	if err != nil {
		return msg
	}
	return out
}

// mayBeHandle reports whether a tools/call result may be a task handle:
// false only when no member's name can be taskId, as encoding/json
// matches names (in any case, or written with escapes).
func mayBeHandle(result []byte) bool {
	return bytes.IndexByte(result, '\\') >= 0 || wire.ContainsFold(result, foldTaskID)
}
