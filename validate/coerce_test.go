package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/validate"
)

type coerceArgs struct {
	Limit int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Price *float64 `json:"price,omitempty"`
	Exact bool     `json:"exact,omitempty"`
	IDs   []uint16 `json:"ids,omitempty" validate:"omitempty,dive,max=255"`
}

func coerceServer(t *testing.T, logs *bytes.Buffer, opts ...validate.Option) func(args string) rpcResult {
	s := newServer(t)
	opts = append(opts, validate.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	s.AddTool(mcp.NewTool("c", validate.InputSchema[coerceArgs]()),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a coerceArgs) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(a)
			return mcp.NewToolResultText(string(b)), nil
		}, opts...))
	return func(args string) rpcResult { return callRaw(t, s, "c", args) }
}

// Numbers and booleans sent as strings: refused by default, as the schema
// says; with WithCoercion, taken when the string holds exactly one,
// logged for the operator and not mentioned to the agent.
func TestCoercion(t *testing.T) {
	t.Parallel()
	var offLogs, onLogs bytes.Buffer
	off := coerceServer(t, &offLogs)
	on := coerceServer(t, &onLogs, validate.WithCoercion())
	for args, want := range map[string]string{
		`{"limit":"5"}`:                        `{"limit":5}`,
		`{"limit":"5.0","price":"2.5"}`:        `{"limit":5,"price":2.5}`,
		`{"exact":"true","ids":["1",2,"255"]}`: `{"exact":true,"ids":[1,2,255]}`,
		`{"limit":" 5"}`:                       "limit:type",
		`{"limit":"0x5"}`:                      "limit:type",
		`{"limit":"99"}`:                       "limit:max",
		`{"limit":"1.5"}`:                      "limit:type",
		`{"exact":"yes"}`:                      "exact:type",
		`{"exact":"True"}`:                     "exact:type",
		`{"ids":["256"]}`:                      "ids[0]:max",
		`{"price":"NaN"}`:                      "price:type",
		`{"price":""}`:                         "price:type",
	} {
		if r := off(args); !r.isErr || r.env == nil || r.env.Fields[0].Rule != "type" {
			t.Errorf("without coercion %s: %s", args, r.raw)
		}
		r := on(args)
		if strings.HasPrefix(want, "{") {
			if r.isErr || r.text != want {
				t.Errorf("with coercion %s: %s, want %s", args, r.raw, want)
			}
			if strings.Contains(r.raw, "coerc") {
				t.Errorf("the agent is told about coercion: %s", r.raw)
			}
			continue
		}
		env := mustInvalid(t, r)
		if got := env.Fields[0].Field + ":" + env.Fields[0].Rule; got != want {
			t.Errorf("with coercion %s: %s, want %s", args, got, want)
		}
	}
	if !strings.Contains(onLogs.String(), `msg="mcpguard: coerced string arguments" tool=c coerced=exact,ids[0],ids[2]`) {
		t.Errorf("coercions not logged: %s", onLogs.String())
	}
	if offLogs.Len() != 0 {
		t.Errorf("logs without coercion: %s", offLogs.String())
	}
}
