package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/middleware"
)

// shopChildEnv makes the test binary the upstream of
// TestTheProxyWritesTheFrontsCallRecord.
const shopChildEnv = "MCPGUARD_E2E_SHOP_CHILD"

// TestProxyShopUpstreamChild is not a test: re-executed by
// TestTheProxyWritesTheFrontsCallRecord with shopChildEnv set, the test
// binary is a plain go-sdk server on stdio, without mcpguard, serving
// shopGet as goSDKShop does.
func TestProxyShopUpstreamChild(t *testing.T) {
	if os.Getenv(shopChildEnv) == "" {
		t.Skip("the upstream of TestTheProxyWritesTheFrontsCallRecord, run only by it")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	addShopGet(s)
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0) // before the testing package writes PASS on the client's stream
}

// logfmtPair is one key=value of a text log line, the value bare or
// quoted.
var logfmtPair = regexp.MustCompile(`([a-z_]+)=("(?:[^"\\]|\\.)*"|\S+)`)

// proxyCallRecords are the per-call records of the proxy's stderr (slog's
// text format), each as a map of its keys but time and duration.
func proxyCallRecords(stderr string) []map[string]any {
	var recs []map[string]any
	for _, line := range strings.Split(stderr, "\n") {
		rec := map[string]any{}
		for _, m := range logfmtPair.FindAllStringSubmatch(line, -1) {
			v := m[2]
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			rec[m[1]] = v
		}
		if rec["msg"] == middleware.LogMessage {
			delete(rec, "time")
			delete(rec, middleware.LogKeyDuration)
			recs = append(recs, rec)
		}
	}
	return recs
}

// TestTheProxyWritesTheFrontsCallRecord: mcpguard-proxy --log-arguments
// in front of a plain go-sdk server writes, for the calls whose answers
// the three consumers agree on, the record the mcp-go front writes:
// message, level, tool, outcome, error_type and the arguments, masked.
// (An unclassified error and a panic differ by design: the proxy reads
// only a plain server's text; docs/proxy.md.)
func TestTheProxyWritesTheFrontsCallRecord(t *testing.T) {
	t.Parallel()
	rows := []map[string]any{
		{"id": "p-1", "api_key": "sk-live-hunter2"}, // success
		{"id": "gone"}, // a handler's failure
		{"price": 3},   // the declared schema's refusal
	}
	s, stderr := stdioSession(t, []string{shopChildEnv + "=1"},
		[]string{proxyBin(t), "--log-arguments", "--", os.Args[0], "-test.run=^TestProxyShopUpstreamChild$"})
	for _, args := range rows {
		b, _ := json.Marshal(args)
		s.call(t, "shop_get", string(b))
	}
	var got []map[string]any // written before each answer, read off the proxy's stderr pipe
	for deadline := time.Now().Add(10 * time.Second); len(got) < len(rows) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		got = proxyCallRecords(stderr.String())
	}
	if len(got) != len(rows) {
		t.Fatalf("%d per-call records, want %d:\n%s", len(got), len(rows), stderr)
	}
	for i, args := range rows {
		mg, logs := mcpGoShop(t)
		mg.Call(args)
		want, _ := callRecord(t, "mcp-go", logs.Records())
		for _, k := range []string{"msg", "level", "tool", "outcome", "error_type", "arguments"} {
			if got[i][k] != want[k] {
				t.Errorf("call %v: the proxy's %s = %v, the mcp-go front's %v\nproxy:  %v\nmcp-go: %v", args, k, got[i][k], want[k], got[i], want)
			}
		}
	}
	if strings.Contains(stderr.String(), "hunter2") {
		t.Errorf("a secret reached the proxy's log:\n%s", stderr)
	}
}
