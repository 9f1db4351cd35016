package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// shopGet is the one handler both fronts serve, by the id it is given: a
// success, a classified failure, an unclassified one and a panic.
func shopGet(id string) (string, error) {
	switch id {
	case "gone":
		return "", fmt.Errorf("product %s: %w", id, envelope.ErrNotFound)
	case "oops":
		return "", errors.New("db down: password=hunter2")
	case "boom":
		panic("nil map in the price cache")
	}
	return `{"id":"` + id + `","price":129}`, nil
}

func mcpGoShop(t *testing.T) (*middlewaretest.Server, *middlewaretest.Log) {
	logs := middlewaretest.NewLog(t)
	tool := mcpgo.NewTool("shop_get", mcpgo.WithString("id", mcpgo.Required()))
	h := func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		text, err := shopGet(req.GetString("id", ""))
		if err != nil {
			return nil, err
		}
		return mcpgo.NewToolResultText(text), nil
	}
	srv := middlewaretest.New(t, tool, h,
		middleware.Default(middleware.WithLogger(logs.Logger(), middleware.WithArguments()))...)
	return srv, logs
}

func goSDKShop(t *testing.T) (*gosdktest.Session, *gosdktest.Log) {
	logs := gosdktest.NewLog(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	gosdk.Install(s, gosdk.WithLogger(logs.Logger(), gosdk.WithArguments()))
	addShopGet(s)
	return gosdktest.Connect(t, s), logs
}

// callRecord returns the one per-call record among records, without the
// keys whose values differ between two runs of the same call by design:
// the time, the duration, and the incident ID, which it returns apart.
func callRecord(t *testing.T, front string, records []map[string]any) (map[string]any, string) {
	t.Helper()
	var found []map[string]any
	for _, r := range records {
		if r["msg"] == middleware.LogMessage {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d per-call records, want 1: %v", front, len(found), records)
	}
	rec := map[string]any{}
	for k, v := range found[0] {
		rec[k] = v
	}
	if _, ok := rec[middleware.LogKeyDuration].(float64); !ok {
		t.Errorf("%s: the record has no duration: %v", front, rec)
	}
	id, _ := rec[middleware.LogKeyIncidentID].(string)
	delete(rec, "time")
	delete(rec, middleware.LogKeyDuration)
	delete(rec, middleware.LogKeyIncidentID)
	return rec, id
}

// incidentOf is the incident ID of the envelope the client received, or "".
func incidentOf(env *envelope.Envelope) string {
	if env == nil {
		return ""
	}
	return env.IncidentID
}

// TestBothFrontsWriteTheSameCallRecord drives a real mcp-go server and a
// real go-sdk server, each with its one line and a logger, through the
// same calls, and checks that the per-call record is the same on both:
// message, keys and values, but for the time, the duration and the
// incident ID's value.
func TestBothFrontsWriteTheSameCallRecord(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     map[string]any
		want     map[string]any
		incident bool
	}{
		{"success", map[string]any{"id": "p-1", "api_key": "sk-live-hunter2"},
			map[string]any{"level": "INFO", "outcome": "success"}, false},
		{"handler error", map[string]any{"id": "gone"},
			map[string]any{"level": "WARN", "outcome": "tool_error", "error_type": "not_found"}, false},
		{"unclassified error", map[string]any{"id": "oops"},
			map[string]any{"level": "ERROR", "outcome": "tool_error", "error_type": "internal_error"}, true},
		{"panic", map[string]any{"id": "boom"},
			map[string]any{"level": "ERROR", "outcome": "tool_error", "error_type": "internal_error"}, true},
		{"validation refusal", map[string]any{"price": 3},
			map[string]any{"level": "WARN", "outcome": "tool_error", "error_type": "validation_error"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mg, mgLogs := mcpGoShop(t)
			gs, gsLogs := goSDKShop(t)
			mgRes := mg.Call(tc.args).NoLeak("hunter2")
			gsRes := gs.Call("shop_get", tc.args).NoLeak("hunter2")

			mgRec, mgIncident := callRecord(t, "mcp-go", mgLogs.Records())
			gsRec, gsIncident := callRecord(t, "go-sdk", gsLogs.Records())
			if !reflect.DeepEqual(mgRec, gsRec) {
				t.Errorf("the fronts' records differ:\nmcp-go: %v\ngo-sdk: %v", mgRec, gsRec)
			}
			if (mgIncident != "") != tc.incident || (gsIncident != "") != tc.incident {
				t.Errorf("incident_id: mcp-go %q, go-sdk %q, want one: %v", mgIncident, gsIncident, tc.incident)
			}
			if mgIncident != incidentOf(mgRes.Envelope) || gsIncident != incidentOf(gsRes.Envelope) {
				t.Errorf("the records' incident IDs (mcp-go %q, go-sdk %q) are not those the clients received (%q, %q)",
					mgIncident, gsIncident, incidentOf(mgRes.Envelope), incidentOf(gsRes.Envelope))
			}
			args, _ := json.Marshal(tc.args)
			for k, v := range tc.want {
				if mgRec[k] != v {
					t.Errorf("%s = %v, want %v (%v)", k, mgRec[k], v, mgRec)
				}
			}
			if mgRec["tool"] != "shop_get" || mgRec["msg"] != gosdk.LogMessage {
				t.Errorf("tool and message: %v", mgRec)
			}
			if a, _ := mgRec["arguments"].(string); a == "" || a == string(args) && tc.args["api_key"] != nil {
				t.Errorf("arguments %q, want them logged with the key masked", a)
			}
		})
	}
}

// addShopGet adds shop_get, serving shopGet, to s.
func addShopGet(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "shop_get",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			text, err := shopGet(a.ID)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
}
