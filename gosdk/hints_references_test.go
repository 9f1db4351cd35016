package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

var errNoEntity = errors.New("no such entity")

// memoryServer is go-sdk's memory example in small: memory_read, and the
// tools its hints may name.
func memoryServer(layers ...mcp.Middleware) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "v0.0.0"}, nil)
	s.AddReceivingMiddleware(layers...)
	mcp.AddTool(s, &mcp.Tool{Name: "memory_read"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderIn) (*mcp.CallToolResult, orderOut, error) {
		if in.ID == "" {
			return nil, orderOut{}, gosdk.Wrap(gosdk.NotFound, errNoEntity)
		}
		return nil, orderOut{Status: "found"}, nil
	})
	for _, name := range []string{"search_nodes", "memory_write"} {
		mcp.AddTool(s, &mcp.Tool{Name: name}, shipped)
	}
	return s
}

// A hint naming a tool the server does not have (a typo: search_node for
// search_nodes) is never sent to the agent, which would loop on "unknown
// tool"; the hints layer finds it at the first call (or tools/list),
// without gosdk.Check, and logs it once as a warning. The other steps
// still go out, wherever the layer sits.
func TestAStepNamingAnUnknownToolIsNotSentOnGoSDK(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("memory_read",
		gosdk.OnError(gosdk.NotFound, gosdk.Call("search_node", "to find the entity's name"), gosdk.Text("Check the entity's name.")),
		gosdk.OnSuccess(gosdk.Call("search_node", "for related entities"), gosdk.Call("memory_write", "to add an observation")),
	)
	for order, layers := range orders {
		for _, listFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/listFirst=%v", order, listFirst), func(t *testing.T) {
				t.Parallel()
				log := gosdktest.NewLog(t)
				reg := gosdk.NewHintRegistry([]gosdk.Rule{rule}, gosdk.WithHintLogger(log.Logger()))
				c := gosdktest.Connect(t, memoryServer(layers(reg.Middleware())...))
				if listFirst {
					c.ListTools()
				}
				for range 2 {
					r := c.Call("memory_read", map[string]any{"id": "alice"}).ExpectSuccess().ExpectNextStep("Call memory_write to add an observation.")
					if strings.Contains(r.Text(), "search_node ") {
						t.Errorf("a step names the unknown tool: %s", r.Raw)
					}
					e := c.Call("memory_read", map[string]any{"id": ""}).ExpectError(gosdk.NotFound)
					if got := strings.Join(e.Envelope.NextSteps, "\n"); strings.Contains(got, "search_node ") || e.Envelope.NextSteps[0] != "Check the entity's name." {
						t.Errorf("next_steps = %q", e.Envelope.NextSteps)
					}
				}
				var warned int
				for _, rec := range log.Records() {
					if e, _ := rec["error"].(string); strings.Contains(e, `unknown tool "search_node"`) && rec["level"] == "WARN" {
						warned++
					}
				}
				if warned != 1 {
					t.Fatalf("%d warnings name search_node, want 1: %v", warned, log.Records())
				}
			})
		}
	}
}

// Given to the Middleware (WithHintRegistry), where hints are a stage of
// its chain, the references are checked at the first complete tools/list
// too, before any call, and at the first call when nothing listed.
func TestTheMiddlewaresHintsCheckReferencesAtTheFirstListing(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("memory_read", gosdk.OnError(gosdk.NotFound, gosdk.Call("search_node", "to find the entity's name")))
	warnings := func(log *gosdktest.Log) (n int) {
		for _, rec := range log.Records() {
			if e, _ := rec["error"].(string); strings.Contains(e, `unknown tool "search_node"`) && rec["level"] == "WARN" {
				n++
			}
		}
		return n
	}
	for _, listFirst := range []bool{true, false} {
		log := gosdktest.NewLog(t)
		reg := gosdk.NewHintRegistry([]gosdk.Rule{rule}, gosdk.WithHintLogger(log.Logger()))
		c := gosdktest.Connect(t, memoryServer(gosdk.Middleware(gosdk.WithHintRegistry(reg))))
		if listFirst {
			c.ListTools()
			if got := warnings(log); got != 1 {
				t.Fatalf("after tools/list: %d warnings name search_node, want 1: %v", got, log.Records())
			}
		}
		e := c.Call("memory_read", map[string]any{"id": ""}).ExpectError(gosdk.NotFound)
		if strings.Contains(strings.Join(e.Envelope.NextSteps, "\n"), "search_node ") {
			t.Errorf("listFirst=%v: next_steps = %q", listFirst, e.Envelope.NextSteps)
		}
		if got := warnings(log); got != 1 {
			t.Fatalf("listFirst=%v: %d warnings name search_node, want 1: %v", listFirst, got, log.Records())
		}
	}
}
